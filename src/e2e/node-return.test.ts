import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { deploymentUnavailable, seedShop, seedWorkload, startTestCluster } from "../testing/cluster.ts";
import { runningPod, runningStatus } from "../sim/scenarios/builders.ts";
import type { KubeObject } from "../sim/store.ts";
import type { Simulator } from "../sim/simulator.ts";

/**
 * When a lost node comes back (issue 52 item 6), through the real daemon on the simulator: a Deployment pinned to
 * the node still starting as the node's incident resolves is judged from that resolve, not from when the node
 * went — never announced and resolved seconds later — and one still not ready a whole hold after the resolve is
 * told. Any loss length, any time the pod takes to be ready again.
 */
const track = useCleanup();

// Holds (failure-catalogue 0.3): a pod not ready, 5 minutes; a Deployment without available replica, 2.
const READINESS_HOLD_MS = 300_000;
const UNAVAILABLE_HOLD_MS = 120_000;
const STEP_MS = 15_000;

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

interface Told {
  action: string;
  incidentId: string;
  at: string;
  covers?: string[];
}

function nodeReady(sim: Simulator, status: "True" | "Unknown", at: number): void {
  sim.patchStatus("v1", "Node", undefined, "n3", {
    conditions: [
      status === "True"
        ? { type: "Ready", status, reason: "KubeletReady", lastTransitionTime: iso(at), lastHeartbeatTime: iso(at) }
        : { type: "Ready", status, reason: "NodeStatusUnknown", lastTransitionTime: iso(at) },
    ],
  });
}

/**
 * Pod `name` of Deployment gpu (ReplicaSet `rs`) as the kubelet writes it: running on n3 since `startedAt`, ready
 * or not since `since`; `pending`: not placed yet, the scheduler finding no node it tolerates.
 */
function gpuPod(
  sim: Simulator,
  rs: KubeObject,
  name: string,
  state: "pending" | "ready" | "not ready",
  since: number,
  startedAt: number,
): void {
  const running = runningPod(rs, name.replace("gpu-abc12-", ""), "n3", startedAt);
  const pod = { ...running, spec: { ...running.spec, nodeSelector: { "kubernetes.io/hostname": "n3" } } };
  if (state === "pending") {
    sim.apply({ ...pod, spec: { ...pod.spec, nodeName: undefined }, status: undefined });
    sim.patchStatus("v1", "Pod", "shop", name, {
      phase: "Pending",
      conditions: [
        {
          type: "PodScheduled",
          status: "False",
          reason: "Unschedulable",
          message:
            "0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 2 node(s) didn't match Pod's node affinity/selector.",
          lastTransitionTime: iso(since),
        },
      ],
    });
    return;
  }
  const ready = state === "ready";
  const status = runningStatus("gpu", "ghcr.io/shop/gpu:1.0", iso(startedAt));
  sim.apply(pod);
  sim.patchStatus("v1", "Pod", "shop", name, {
    ...status,
    conditions: status.conditions.map((c: KubeObject) =>
      c.type === "Ready" || c.type === "ContainersReady"
        ? { ...c, status: ready ? "True" : "False", lastTransitionTime: iso(since) }
        : c,
    ),
    containerStatuses: status.containerStatuses.map((c: KubeObject) => ({ ...c, ready })),
  });
}

/** One run: how long n3 is lost, how long after its return its pod is placed, and how long that pod takes to be ready. */
interface Return {
  readonly lostMs: number;
  readonly placedMs: number;
  readonly readyMs: number;
  /**
   * When set, the Deployment's rollout passes its progress deadline this long after the loss, if its pod is not
   * ready by then: while the node is lost, while it waits to be placed, or while it starts.
   */
  readonly stuckMs?: number | null;
}

/**
 * Node n3, with the one pod of Deployment gpu (pinned to it) on it, is lost; a minute later the pod is evicted
 * and its replacement waits for the node. Once n3 is back, the replacement is placed after `placedMs` (the
 * scheduler retries a pod it could not place within 5 minutes) and is ready `readyMs` after it starts. Returns
 * what was told, and when (fake-clock epoch ms) the node's incident resolved and the replacement was ready.
 */
async function nodeReturns({
  lostMs,
  placedMs,
  readyMs,
  stuckMs,
}: Return): Promise<{ told: Told[]; resolvedAt: number; readyAt: number }> {
  const hook = track(await startCaptureServer());
  const c = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }));
  const { sim, clock } = c;
  const started = clock.now() - 3_600_000;
  seedShop(sim, clock.now());
  seedWorkload(sim, "shop", "gpu", ["n3"], clock.now());
  const rs = sim.store.get(sim.typeOf("apps", "v1", "replicasets"), "shop", "gpu-abc12");
  await c.settle();
  const told = () => hook.requests.map((r) => r.json() as Told);
  const lost = clock.now();
  // The deployment controller: no progress for progressDeadlineSeconds while its pod could not run or start.
  let stuckAt = stuckMs ? lost + Math.max(stuckMs, 60_000) : Number.POSITIVE_INFINITY;
  const stuck = () => {
    stuckAt = Number.POSITIVE_INFINITY;
    deploymentUnavailable(sim, "shop", "gpu", lost, [
      {
        type: "Progressing",
        status: "False",
        reason: "ProgressDeadlineExceeded",
        message: 'ReplicaSet "gpu-abc12" has timed out progressing.',
        lastTransitionTime: iso(clock.now()),
        lastUpdateTime: iso(clock.now()),
      },
    ]);
  };
  const until = async (end: number) => {
    while (clock.now() < end) {
      await clock.advance(Math.min(STEP_MS, end - clock.now(), Math.max(0, stuckAt - clock.now()) || STEP_MS));
      if (clock.now() >= stuckAt) stuck();
      await c.settle();
    }
  };
  nodeReady(sim, "Unknown", lost);
  // The node lifecycle controller marks its pods not ready; the Deployment has no available replica.
  gpuPod(sim, rs, "gpu-abc12-p0", "not ready", lost, started);
  deploymentUnavailable(sim, "shop", "gpu", lost);
  await until(lost + 60_000);
  sim.remove("v1", "Pod", "shop", "gpu-abc12-p0");
  gpuPod(sim, rs, "gpu-abc12-p1", "pending", clock.now(), clock.now());
  await until(lost + Math.max(lostMs, 90_000));
  const back = clock.now();
  nodeReady(sim, "True", back);
  await until(back + placedMs);
  const placed = clock.now();
  gpuPod(sim, rs, "gpu-abc12-p1", "not ready", placed, placed);
  await until(placed + readyMs);
  const readyAt = clock.now();
  stuckAt = Number.POSITIVE_INFINITY;
  gpuPod(sim, rs, "gpu-abc12-p1", "ready", readyAt, placed);
  sim.patchStatus("apps/v1", "Deployment", "shop", "gpu", {
    availableReplicas: 1,
    readyReplicas: 1,
    unavailableReplicas: 0,
    conditions: [{ type: "Available", status: "True", reason: "MinimumReplicasAvailable" }],
  });
  await until(clock.now() + 10 * 60_000);
  await waitUntil(
    async () => told().some((m) => m.action === "resolve" && m.incidentId === "Node//n3"),
    "n3's resolve",
  );
  const resolve = told().find((m) => m.action === "resolve" && m.incidentId === "Node//n3")!;
  await c.stop();
  return { told: told(), resolvedAt: Date.parse(resolve.at), readyAt };
}

describe("a lost node's return", () => {
  test("a workload still starting as the node resolves is judged from the resolve: told only if still failing a whole hold later, never announced and resolved at once", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          lostMs: fc.integer({ min: 3, max: 20 }).map((m) => m * 60_000),
          placedMs: fc.integer({ min: 0, max: 6 * 4 }).map((q) => q * STEP_MS),
          readyMs: fc.integer({ min: 0, max: 12 * 4 }).map((q) => q * STEP_MS),
          stuckMs: fc.option(fc.integer({ min: 1, max: 30 }).map((m) => m * 60_000)),
        }),
        async (run) => {
          const { told, resolvedAt, readyAt } = await nodeReturns(run);
          const gpu = told.filter((m) =>
            [m.incidentId, ...(m.covers ?? [])].some((id) => /gpu/.test(id) && !id.startsWith("Node/")),
          );
          const announced = gpu.find((m) => m.action === "announce");
          // Never at the node's resolve: a hold after it at the earliest.
          if (announced)
            expect(Date.parse(announced.at)).toBeGreaterThanOrEqual(resolvedAt + UNAVAILABLE_HOLD_MS - STEP_MS);
          // Not ready a whole hold after the node's resolve, and a pass to spare: told.
          if (readyAt > resolvedAt + READINESS_HOLD_MS + 2 * STEP_MS) expect(announced).toBeDefined();
        },
      ),
      {
        numRuns: Number(process.env.MON_PROPERTY_RUNS ?? 6),
        endOnFailure: true,
        seed: 52_6,
        examples: [
          // The run issue 52 saw: the replacement placed as the node's incident gave up waiting, ready seconds later.
          [{ lostMs: 6 * 60_000, placedMs: 5 * 60_000, readyMs: 15_000, stuckMs: null }],
          [{ lostMs: 5 * 60_000, placedMs: 0, readyMs: 0, stuckMs: null }],
          [{ lostMs: 4 * 60_000, placedMs: 60_000, readyMs: 12 * 60_000, stuckMs: null }],
          // The real control plane's run (pinned-slow-start): lost for 7 minutes, the replacement placed at once
          // and ready 5.5 minutes later, half a minute after the node's resolve; the rollout past its deadline
          // while that pod started, the node's incident waiting for it.
          [{ lostMs: 7 * 60_000, placedMs: 0, readyMs: 330_000, stuckMs: 10 * 60_000 }],
          [{ lostMs: 7 * 60_000, placedMs: 0, readyMs: 330_000, stuckMs: 6 * 60_000 }],
          [{ lostMs: 18 * 60_000, placedMs: 150_000, readyMs: 660_000, stuckMs: 60_000 }],
        ],
      },
    );
  }, 300_000);
});
