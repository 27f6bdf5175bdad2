import type { KubeObject } from "../store.ts";
import { controllerRef, ensureRevision, nameHash, ownedBy, podActive, podReady } from "./api.ts";
import type { Controller } from "./controller.ts";
import { tolerates } from "./scheduler.ts";

/** The tolerations the DaemonSet controller adds to its pods, so they stay on not-ready and unreachable nodes. */
const DAEMON_TOLERATIONS = [
  { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/disk-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/pid-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
];

/**
 * The DaemonSet controller: one pod on every node that matches its nodeSelector and whose taints it tolerates
 * (placed directly on the node; a NoSchedule taint only keeps new pods away), the surplus removed, a changed
 * template rolled out as RollingUpdate with maxUnavailable 1 (old pods that are not ready replaced at once,
 * available ones one node at a time), and the status counts.
 */
export const daemonSetController: Controller = {
  name: "daemonset",
  sync(api) {
    const pods = api.list("Pod");
    const nodes = api.list("Node");
    for (const ds of api.list("DaemonSet")) {
      const template = ds.spec?.template ?? {};
      const hash = nameHash(template);
      ensureRevision(api, ds, template, hash);
      const probe: KubeObject = {
        spec: { tolerations: [...(template.spec?.tolerations ?? []), ...DAEMON_TOLERATIONS] },
      };
      const selected = (n: KubeObject) =>
        Object.entries(template.spec?.nodeSelector ?? {}).every(([k, v]) => n.metadata.labels?.[k] === v);
      const untolerated = (n: KubeObject, effect: string) =>
        (n.spec?.taints ?? []).some((t: KubeObject) => t.effect === effect && !tolerates(probe, t));
      // A new pod goes only where no NoSchedule taint forbids it; a running one stays unless a NoExecute taint
      // evicts it (so the pod of a node that became unreachable is kept), as the real controller decides.
      const wanted = nodes.filter((n) => selected(n) && !untolerated(n, "NoSchedule") && !untolerated(n, "NoExecute"));
      const keep = nodes.filter((n) => selected(n) && !untolerated(n, "NoExecute"));
      const mine = ownedBy(pods, ds).filter((p) => !p.metadata.deletionTimestamp);
      // RollingUpdate with maxUnavailable 1: an old pod that is not ready goes at once; an available one only
      // while no other node is without an available pod (one being replaced counts as without).
      let unavailable = keep.filter(
        (n) => !mine.some((p) => p.spec?.nodeName === n.metadata.name && podReady(p)),
      ).length;
      for (const node of keep) {
        const here = mine.filter((p) => p.spec?.nodeName === node.metadata.name);
        if (here.length === 0 && wanted.includes(node)) {
          const created = api.create("Pod", ds.metadata.namespace, {
            metadata: {
              generateName: `${ds.metadata.name}-`,
              labels: {
                ...(template.metadata?.labels ?? {}),
                "controller-revision-hash": hash,
                "pod-template-generation": String(ds.metadata.generation ?? 1),
              },
              ownerReferences: [controllerRef(ds)],
            },
            spec: {
              ...structuredClone(template.spec ?? {}),
              nodeName: node.metadata.name,
              tolerations: probe.spec.tolerations,
            },
          });
          api.event(ds, "Normal", "SuccessfulCreate", `Created pod: ${created.metadata.name}`, "daemonset-controller");
        } else {
          const old = here[0];
          if (!old || old.metadata.labels?.["controller-revision-hash"] === hash) continue;
          if (!podReady(old)) api.remove("Pod", ds.metadata.namespace, old.metadata.name);
          else if (unavailable < 1) {
            unavailable += 1;
            api.remove("Pod", ds.metadata.namespace, old.metadata.name);
          }
        }
      }
      for (const pod of mine)
        if (!keep.some((n) => n.metadata.name === pod.spec?.nodeName))
          api.remove("Pod", pod.metadata.namespace, pod.metadata.name);
      // The status counts as the real controller's: only nodes that should run the pod now (a node it may not be
      // scheduled to, an unreachable one, is not desired; a pod left there is misscheduled, not counted).
      const fresh = ownedBy(api.list("Pod", ds.metadata.namespace), ds).filter(podActive);
      const on = (n: KubeObject) => fresh.find((p) => p.spec?.nodeName === n.metadata.name);
      const scheduled = wanted.map(on).filter((p): p is KubeObject => p !== undefined);
      const ready = scheduled.filter(podReady).length;
      const misscheduled = nodes.filter((n) => !wanted.includes(n) && on(n)).length;
      api.setStatus(ds, {
        currentNumberScheduled: scheduled.length,
        numberMisscheduled: misscheduled,
        desiredNumberScheduled: wanted.length,
        numberReady: ready,
        observedGeneration: ds.metadata.generation,
        updatedNumberScheduled: scheduled.filter((p) => p.metadata.labels?.["controller-revision-hash"] === hash)
          .length,
        numberAvailable: ready,
        ...(wanted.length - ready > 0 ? { numberUnavailable: wanted.length - ready } : {}),
      });
    }
    return undefined;
  },
};
