import type { KubeObject } from "../store.ts";
import { type ControllerApi, controllerRef, ownedBy, podActive, podReady } from "./api.ts";
import type { Controller } from "./controller.ts";

/**
 * The ReplicaSet controller: keeps `spec.replicas` active pods from the template (owner reference, generated
 * names), deletes the surplus (unscheduled first, then not ready, then the newest) and writes the status
 * counts. Pods being deleted or finished do not count, so a replacement is created at once, as on a real cluster.
 */
export const replicaSetController: Controller = {
  name: "replicaset",
  sync(api) {
    const pods = api.list("Pod");
    for (const rs of api.list("ReplicaSet")) {
      const mine = ownedBy(pods, rs);
      const active = mine.filter(podActive);
      const want = rs.spec?.replicas ?? 1;
      if (active.length < want) for (let i = active.length; i < want; i++) createPod(api, rs);
      if (active.length > want) {
        const order = [...active].sort(deletionOrder);
        for (const pod of order.slice(0, active.length - want)) {
          api.remove("Pod", pod.metadata.namespace, pod.metadata.name);
          api.event(rs, "Normal", "SuccessfulDelete", `Deleted pod: ${pod.metadata.name}`, "replicaset-controller");
        }
      }
      const now = ownedBy(api.list("Pod", rs.metadata.namespace), rs).filter(podActive);
      const ready = now.filter(podReady).length;
      api.setStatus(rs, {
        replicas: now.length,
        fullyLabeledReplicas: now.length,
        readyReplicas: ready,
        availableReplicas: ready,
        observedGeneration: rs.metadata.generation,
      });
    }
    return undefined;
  },
};

/** Creates one pod of a controller's template, named `<owner>-<5 random>`, as ReplicaSets and Jobs do. */
export function createPod(api: ControllerApi, owner: KubeObject, extra: KubeObject = {}): KubeObject {
  const template = owner.spec?.template ?? {};
  const pod = api.create("Pod", owner.metadata.namespace, {
    metadata: {
      generateName: `${owner.metadata.name}-`,
      labels: { ...(template.metadata?.labels ?? {}) },
      ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
      ownerReferences: [controllerRef(owner)],
      ...extra.metadata,
    },
    spec: structuredClone({ ...template.spec, ...extra.spec }),
  });
  api.event(
    owner,
    "Normal",
    "SuccessfulCreate",
    `Created pod: ${pod.metadata.name}`,
    `${owner.kind.toLowerCase()}-controller`,
  );
  return pod;
}

// --- internal ---

function deletionOrder(a: KubeObject, b: KubeObject): number {
  const rank = (p: KubeObject) => (!p.spec?.nodeName ? 0 : podReady(p) ? 2 : 1);
  return (
    rank(a) - rank(b) ||
    String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)) ||
    String(b.metadata.name).localeCompare(String(a.metadata.name))
  );
}
