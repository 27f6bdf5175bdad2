import { connectKube } from "../kube/connection.ts";
import { podCache } from "./pod-cache.ts";
import { createSystemClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { QUICK_TIMING } from "../sim/controllers/index.ts";
import { readyNode } from "../sim/scenarios/builders.ts";
import { startSimulator } from "../sim/simulator.ts";
import { realStoryCluster } from "../sim/standin/story-cluster.ts";
import { simStoryCluster } from "../sim/stories/cluster.ts";
import { STORIES } from "../sim/stories/index.ts";
import { DIFFERENTIAL_SCRIPT, factsOf, type Recording, record, runScript } from "./differential.ts";
import { DIFFERENTIAL_PLACE, type PreparedStoryNodes, serviceIpsOf } from "./real-stories.ts";

/** What the differential saw on each server: facts, and the writes the real one refused. */
export interface DifferentialRun {
  readonly simulator: readonly string[];
  readonly real: readonly string[];
  readonly failures: readonly string[];
}

/** The namespace, node prefix and label of the script on the real control plane. */
const PLACE = DIFFERENTIAL_PLACE;

/**
 * Tells DIFFERENTIAL_SCRIPT at once to a fresh simulator (its controllers on the real clock and QUICK_TIMING)
 * and to the real control plane (the kubelet stand-in of `nodes`, on QUICK_TIMING too), watching both; after
 * the script, asks each for a watch from the resourceVersion the script began at, deletes the script's
 * namespace, waits a minute, and returns each server's facts (differential.ts `factsOf`) with watch facts:
 * bookmarks on a kind that changed, and how the old resourceVersion was answered. About 8 minutes.
 */
export async function runDifferential(nodes: PreparedStoryNodes): Promise<DifferentialRun> {
  const clock = createSystemClock();
  const logger = createSilentLogger();
  const sim = await startSimulator({ controllers: clock, timing: QUICK_TIMING });
  const recordings: Recording[] = [];
  const connection = await connectKube({ kubeconfigText: nodes.kube.kubeconfigText });
  const podInformer = podCache(connection, clock, logger);
  const { pods } = podInformer;
  try {
    for (let i = 1; i <= DIFFERENTIAL_SCRIPT.nodes; i++) sim.apply(readyNode(`worker-${i}`, Date.now() - 86_400_000));
    sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } });
    await nodes.standIn.addNodes(
      Array.from({ length: DIFFERENTIAL_SCRIPT.nodes }, (_, i) => ({
        name: `${PLACE}-worker-${i + 1}`,
        labels: { "stories.mon.io/story": PLACE },
        address: "127.0.0.1",
      })),
    );
    await connection.request("/api/v1/namespaces", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: PLACE } }),
    });
    podInformer.start();
    const simRecording = await record(sim.kubeconfig());
    const realRecording = await record(nodes.kube.kubeconfigText);
    recordings.push(simRecording, realRecording);
    const simPods = "/api/v1/namespaces/shop/pods";
    const realPods = `/api/v1/namespaces/${PLACE}/pods`;
    const firstRv = [await simRecording.resourceVersion(simPods), await realRecording.resourceVersion(realPods)];
    const real = realStoryCluster({
      connection,
      kubelets: {
        stop: (node) => nodes.standIn.stopKubelet(node),
        start: (node) => nodes.standIn.startKubelet(node),
        async restart(node) {
          nodes.standIn.stopKubelet(node);
          await nodes.standIn.startKubelet(node);
        },
      },
      // After the stories' addresses: the two run side by side on one cluster.
      place: {
        namespace: PLACE,
        nodePrefix: PLACE,
        nodeLabel: ["stories.mon.io/story", PLACE],
        clusterIps: {},
        serviceIps: serviceIpsOf(STORIES.length),
      },
      pods: () => pods.values(),
    });
    await Promise.all([runScript(simStoryCluster(sim)), runScript(real)]);
    const expired = [
      await simRecording.watchFrom(simPods, firstRv[0]!),
      await realRecording.watchFrom(realPods, firstRv[1]!),
    ];
    const simConnection = await connectKube({ kubeconfigText: sim.kubeconfig() });
    await simConnection.request("/api/v1/namespaces/shop", { method: "DELETE" });
    await connection.request(`/api/v1/namespaces/${PLACE}`, { method: "DELETE" });
    await new Promise((resolve) => setTimeout(resolve, 60_000));
    const watchFacts = (rec: Recording, answer: string) => {
      const marks = rec.events().filter((e) => e.type === "BOOKMARK" && e.kind === "Pod");
      return [
        // About a minute: kube-apiserver's cacher sends one after a minute (with its timer's jitter), later by
        // seconds on a busy machine; never within seconds, never minutes late.
        ...(marks[0] && marks[0].at >= 50 && marks[0].at <= 90
          ? ["watch: a kind that changed gets a BOOKMARK a minute after its watch began"]
          : [`watch: the first BOOKMARK on a kind that changed came at ${marks[0]?.at.toFixed(0) ?? "never"} s`]),
        `watch: from the script's first resourceVersion, opened after it: ${answer === "410" ? "410 Gone" : "replayed"}`,
      ];
    };
    return {
      simulator: [...factsOf(simRecording.events(), "shop", ""), ...watchFacts(simRecording, expired[0]!)].sort(),
      real: [...factsOf(realRecording.events(), PLACE, PLACE), ...watchFacts(realRecording, expired[1]!)].sort(),
      failures: real.failures(),
    };
  } finally {
    for (const r of recordings) r.stop();
    podInformer.stop();
    await sim.stop();
  }
}
