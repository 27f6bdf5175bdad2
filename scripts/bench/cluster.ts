import type { KubeObject } from "../../src/model/inventory.ts";
import { deployment, readyNode, runningPod } from "../../src/sim/scenarios/builders.ts";

/**
 * Seeds the benchmarks' cluster through `apply` (the simulator's, or one into an Inventory that must set
 * uids): `nodes` Ready nodes a day old, namespace `bench`, Deployments of 10 pods with their ReplicaSets
 * (owner references as the controllers write them) and `pods` running pods spread over the nodes; every
 * `failingEvery`-th pod crash-loops (none when 0). `onPod` sees each pod stored, with its index.
 */
export function seedDeployments(
  apply: (object: KubeObject) => KubeObject,
  options: {
    pods: number;
    nodes: number;
    now: number;
    failingEvery?: number;
    onPod?: (pod: KubeObject, index: number) => void;
  },
): void {
  const { pods, nodes, now, failingEvery = 0 } = options;
  for (let n = 0; n < nodes; n++) apply(readyNode(`node-${n}`, now - 86_400_000));
  apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "bench" } });
  for (let d = 0; d * 10 < pods; d++) {
    const { deployment: dep, replicaSet } = deployment(
      "bench",
      `app-${d}`,
      10,
      `registry.example/app-${d}:1.0`,
      `h${d}`,
    );
    const stored = apply(dep);
    const controller = { apiVersion: "apps/v1", kind: "Deployment", name: dep.metadata.name, controller: true };
    const rs = apply({
      ...replicaSet,
      metadata: { ...replicaSet.metadata, ownerReferences: [{ ...controller, uid: stored.metadata.uid }] },
    });
    for (let i = 0; i < 10 && d * 10 + i < pods; i++) {
      const index = d * 10 + i;
      const pod = runningPod(rs, `p${i}`, `node-${index % nodes}`, now - 3_600_000);
      if (failingEvery > 0 && index % failingEvery === 7)
        pod.status.containerStatuses[0] = {
          ...pod.status.containerStatuses[0],
          ready: false,
          restartCount: 5,
          state: { waiting: { reason: "CrashLoopBackOff" } },
          lastState: { terminated: { exitCode: 1, reason: "Error", message: "boom" } },
        };
      const stored = apply(pod);
      options.onPod?.(stored, index);
    }
  }
}
