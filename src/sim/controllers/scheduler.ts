import type { KubeObject } from "../store.ts";
import { podActive, withCondition } from "./api.ts";
import type { Controller } from "./controller.ts";

/**
 * The scheduler: binds each pending pod whose PersistentVolumeClaims exist and are Bound to the Ready node whose
 * labels match its nodeSelector, whose NoSchedule/NoExecute taints it tolerates, with the fewest pods (ties by
 * name). A pod that fits nowhere gets PodScheduled=False (Unschedulable) and a FailedScheduling event in
 * kube-scheduler's wording.
 */
export const schedulerController: Controller = {
  name: "scheduler",
  sync(api) {
    const pods = api.list("Pod");
    const nodes = api.list("Node");
    for (const pod of pods) {
      if (pod.spec?.nodeName || !podActive(pod)) continue;
      if ((pod.spec?.schedulerName ?? "default-scheduler") !== "default-scheduler") continue;
      const claim = unboundClaim(api, pod);
      const fits = claim ? [] : nodes.filter((n) => fitsOn(pod, n));
      const load = (n: KubeObject) => pods.filter((p) => p.spec?.nodeName === n.metadata.name && podActive(p)).length;
      const node = fits.sort((a, b) => load(a) - load(b) || a.metadata.name.localeCompare(b.metadata.name))[0];
      const now = api.now();
      if (!node) {
        const message =
          nodes.length === 0
            ? "no nodes available to schedule pods"
            : `0/${nodes.length} nodes are available: ${claim ?? whyNot(pod, nodes)}. preemption: 0/${nodes.length} nodes are available: ${nodes.length} Preemption is not helpful for scheduling.`;
        const conditions = withCondition(
          pod.status?.conditions,
          { type: "PodScheduled", status: "False", reason: "Unschedulable", message },
          now,
        );
        if (JSON.stringify(conditions) !== JSON.stringify(pod.status?.conditions)) {
          api.setStatus(pod, { ...pod.status, conditions });
          api.event(pod, "Warning", "FailedScheduling", message, "default-scheduler");
        }
        continue;
      }
      const bound = api.update({ ...pod, spec: { ...pod.spec, nodeName: node.metadata.name } });
      api.setStatus(bound, {
        ...bound.status,
        conditions: withCondition(bound.status?.conditions, { type: "PodScheduled", status: "True" }, now),
      });
      api.event(
        bound,
        "Normal",
        "Scheduled",
        `Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${node.metadata.name}`,
        "default-scheduler",
      );
      pods.splice(pods.indexOf(pod), 1, bound);
    }
    return undefined;
  },
};

/** True when `pod` tolerates `taint` (key, value and effect as the scheduler matches them). */
export function tolerates(pod: KubeObject, taint: KubeObject): boolean {
  return (pod.spec?.tolerations ?? []).some((t: KubeObject) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === "Exists") return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? "") === (taint.value ?? "");
  });
}

// --- internal ---

/** Why the pod's claims keep it from being scheduled (kube-scheduler's VolumeBinding words), or undefined. */
function unboundClaim(api: Parameters<Controller["sync"]>[0], pod: KubeObject): string | undefined {
  for (const v of pod.spec?.volumes ?? []) {
    const name = v.persistentVolumeClaim?.claimName;
    if (!name) continue;
    const claim = api.get("PersistentVolumeClaim", pod.metadata.namespace, name);
    if (!claim) return `persistentvolumeclaim "${name}" not found`;
    if (claim.status?.phase !== "Bound") return "pod has unbound immediate PersistentVolumeClaims";
  }
  return undefined;
}

function nodeReady(node: KubeObject): boolean {
  return (node.status?.conditions ?? []).some((c: KubeObject) => c.type === "Ready" && c.status === "True");
}

function selectorMatches(pod: KubeObject, node: KubeObject): boolean {
  return Object.entries(pod.spec?.nodeSelector ?? {}).every(([k, v]) => node.metadata.labels?.[k] === v);
}

function blockingTaints(pod: KubeObject, node: KubeObject): KubeObject[] {
  return (node.spec?.taints ?? []).filter(
    (t: KubeObject) => (t.effect === "NoSchedule" || t.effect === "NoExecute") && !tolerates(pod, t),
  );
}

function fitsOn(pod: KubeObject, node: KubeObject): boolean {
  return (
    nodeReady(node) && !node.spec?.unschedulable && selectorMatches(pod, node) && blockingTaints(pod, node).length === 0
  );
}

function whyNot(pod: KubeObject, nodes: readonly KubeObject[]): string {
  const reasons = new Map<string, number>();
  const add = (why: string) => reasons.set(why, (reasons.get(why) ?? 0) + 1);
  for (const node of nodes) {
    const taint = blockingTaints(pod, node)[0];
    if (taint) add(`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ""}}`);
    else if (node.spec?.unschedulable) add("node(s) were unschedulable");
    else if (!selectorMatches(pod, node)) add("node(s) didn't match Pod's node affinity/selector");
    else if (!nodeReady(node)) add("node(s) were not ready");
  }
  return [...reasons]
    .map(([why, n]) => `${n} ${why}`)
    .sort()
    .join(", ");
}
