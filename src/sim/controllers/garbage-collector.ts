import type { Controller } from "./controller.ts";

const OWNERS = ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob", "Service"] as const;
const DEPENDENTS = ["ReplicaSet", "Job", "Pod", "EndpointSlice"] as const;

/**
 * The garbage collector (background propagation): a ReplicaSet, Job, Pod or EndpointSlice whose controller owner
 * no longer exists is deleted, so `kubectl delete deployment web` takes its ReplicaSets and pods with it, and a
 * CronJob's deleted run its pods.
 */
export const garbageCollector: Controller = {
  name: "garbage-collector",
  sync(api) {
    const alive = new Set<string>();
    for (const kind of OWNERS) for (const o of api.list(kind)) alive.add(o.metadata.uid);
    for (const kind of DEPENDENTS) {
      for (const o of api.list(kind)) {
        const owner = (o.metadata.ownerReferences ?? []).find((r: { controller?: boolean }) => r.controller);
        if (!owner || !(OWNERS as readonly string[]).includes(owner.kind) || alive.has(owner.uid)) continue;
        if (kind === "Pod" && o.metadata.deletionTimestamp) continue;
        api.remove(kind, o.metadata.namespace, o.metadata.name);
      }
    }
    return undefined;
  },
};
