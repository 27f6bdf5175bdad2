import { connectKube } from "../kube/connection.ts";
import { createInformer } from "../kube/informer.ts";
import { createSystemClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { RECORDED_TIMING, type TimingProfile } from "../sim/controllers/index.ts";
import { startKubeletStandIn, type StandInNode } from "../sim/standin/standin.ts";
import { type RealStoryCluster, realStoryCluster, type StoryPlace } from "../sim/standin/story-cluster.ts";
import type { Story } from "../sim/stories/index.ts";
import type { KubeObject } from "../sim/store.ts";
import type { RealKube } from "./real-kube.ts";
import { type RealRun, startRealDaemon } from "./real-run.ts";
import type { Told } from "./replay.ts";
import type { TimedExpectation } from "./timing/expectations.ts";
import { judgeTimed, type TimedJudgement } from "./timing/invariants.ts";

/** The label that pins a story's pods to its own nodes on the shared real cluster. */
const STORY_LABEL = "stories.mon.io/story";

/** One story of a real-control-plane run and what it should tell. */
export interface RealStorySpec {
  readonly story: Story;
  readonly expected: TimedExpectation;
}

/** What one story told on the real control plane, judged as on the simulator. */
export interface RealStoryResult {
  readonly story: string;
  readonly namespace: string;
  /** The expectation with the story's namespace and node names of this run. */
  readonly expected: TimedExpectation;
  readonly told: readonly Told[];
  readonly judgement: TimedJudgement;
  /** Writes the story or the kubelet stand-in made that the server refused. */
  readonly failures: readonly string[];
  /** Seconds the story ran. */
  readonly seconds: number;
}

/** A whole run: each story's result, and what mon told that belongs to no story (notices about itself). */
export interface RealStoriesRun {
  readonly results: readonly RealStoryResult[];
  readonly unplaced: readonly Told[];
  readonly stalls: number;
}

/**
 * Tells `specs` side by side on the real control plane (issue 40): each story in a namespace named after it,
 * on nodes of its own (`<story>-worker-N`, registered by the kubelet stand-in, which runs every pod on
 * `timing`), its pods pinned to them; one real daemon on the real clock watches the whole cluster and delivers
 * to a webhook. What each story told is the messages about its namespace and nodes, judged with the same
 * invariants and expected conversation as on the simulator. Every story runs its own `lengthSeconds`.
 */
export async function tellStoriesOnRealKube(
  kube: RealKube,
  specs: readonly RealStorySpec[],
  options: { timing?: TimingProfile; config?: Record<string, unknown> } = {},
): Promise<RealStoriesRun> {
  const timing = options.timing ?? RECORDED_TIMING;
  const clock = createSystemClock();
  const logger = createSilentLogger();
  const connection = await connectKube({ kubeconfigText: kube.kubeconfigText });
  const places = specs.map((spec, i) => placeOf(spec.story, i));
  const nodesOf = (spec: RealStorySpec, place: StoryPlace): StandInNode[] =>
    Array.from({ length: spec.story.nodes }, (_, n) => ({
      name: `${place.nodePrefix}-worker-${n + 1}`,
      labels: { [STORY_LABEL]: spec.story.name },
      address: "127.0.0.1",
    }));
  const standIn = await startKubeletStandIn({
    connection,
    clock,
    logger,
    nodes: specs.flatMap((spec, i) => nodesOf(spec, places[i]!)),
    timing,
  });
  const pods = new Map<string, KubeObject>();
  const podInformer = createInformer({
    connection,
    kind: { kind: "Pod", path: "/api/v1/pods" },
    clock,
    logger,
    onEvent: (type, o) => {
      const key = `${o.metadata.namespace}/${o.metadata.name}`;
      if (type === "DELETED") pods.delete(key);
      else pods.set(key, o);
    },
    onState: () => {},
  });
  podInformer.start();
  let run: RealRun | undefined;
  const timers: ReturnType<typeof setTimeout>[] = [];
  try {
    for (const place of places)
      await connection.request("/api/v1/namespaces", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: place.namespace } }),
      });
    run = await startRealDaemon({
      kubeconfigText: kube.kubeconfigText,
      clusterName: "real",
      config: { ...options.config },
    });
    const daemon = run;
    const clusters: RealStoryCluster[] = specs.map((_spec, i) =>
      realStoryCluster({ connection, standIn, place: places[i]!, pods: () => pods.values() }),
    );
    const startedAt = Date.now();
    const length = Math.max(...specs.map((s) => s.story.lengthSeconds));
    await Promise.all(
      specs.map(
        (spec, i) =>
          new Promise<void>((resolve) => {
            const cluster = clusters[i]!;
            for (const step of spec.story.steps)
              timers.push(setTimeout(() => step.run(cluster), startedAt + step.t * 1000 - Date.now()));
            timers.push(setTimeout(resolve, spec.story.lengthSeconds * 1000));
          }),
      ),
    );
    await Promise.all(clusters.map((c) => c.flushed()));
    const told = daemon.told().map((m) => ({ ...m, t: (daemon.zeroMs + m.t * 1000 - startedAt) / 1000 }));
    const placed = new Set<Told>();
    const results = specs.map((spec, i): RealStoryResult => {
      const place = places[i]!;
      const mine = told.flatMap((m) => {
        const covers = m.covers?.filter((id) => belongsTo(id, place));
        if (covers?.length) {
          placed.add(m);
          return [{ ...m, covers }];
        }
        if (!m.incidentId || !belongsTo(m.incidentId, place)) return [];
        placed.add(m);
        return [m];
      });
      const expected = placedExpectation(spec.expected, place);
      return {
        story: spec.story.name,
        namespace: place.namespace,
        expected,
        told: mine,
        judgement: judgeTimed(expected, spec.story.fixedAt, mine),
        failures: clusters[i]!.failures(),
        seconds: spec.story.lengthSeconds,
      };
    });
    void length;
    return {
      results,
      unplaced: told.filter((m) => !placed.has(m)),
      stalls: await daemon.stalls(),
    };
  } finally {
    for (const t of timers) clearTimeout(t);
    await run?.stop();
    podInformer.stop();
    standIn.stop();
  }
}

// --- internal ---

/** The story's namespace (its name), node prefix, node label and ClusterIPs on the shared cluster. */
function placeOf(story: Story, index: number): StoryPlace {
  return {
    namespace: story.name,
    nodePrefix: story.name,
    nodeLabel: [STORY_LABEL, story.name],
    // The stories name one ClusterIP (orders-db); each gets its own in the real Service range (10.0.0.0/24).
    clusterIps: { "10.96.14.7": `10.0.0.${100 + index}` },
  };
}

/** Whether an incident id names the story's namespace or nodes. */
function belongsTo(id: string, place: StoryPlace): boolean {
  return (
    id.includes(`/${place.namespace}/`) ||
    id.includes(`.${place.namespace}:`) ||
    id.startsWith(`Node//${place.nodePrefix}-worker-`)
  );
}

/** The expectation with `shop` and `worker-N` moved to the story's namespace and nodes. */
function placedExpectation(expected: TimedExpectation, place: StoryPlace): TimedExpectation {
  const move = (id: string) =>
    id
      .replaceAll("/shop/", `/${place.namespace}/`)
      .replaceAll(".shop:", `.${place.namespace}:`)
      .replace(/^Node\/\/worker-/, `Node//${place.nodePrefix}-worker-`);
  return {
    ...expected,
    threads: expected.threads.map(move),
    ...(expected.fixes
      ? { fixes: Object.fromEntries(Object.entries(expected.fixes).map(([id, t]) => [move(id), t])) }
      : {}),
  };
}
