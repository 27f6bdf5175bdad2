import { connectKube } from "../kube/connection.ts";
import { createInformer } from "../kube/informer.ts";
import { createSystemClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { RECORDED_TIMING, type TimingProfile } from "../sim/controllers/index.ts";
import { type KubeletStandIn, startKubeletStandIn, type StandInNode } from "../sim/standin/standin.ts";
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
  /** Watches mon found stalled during the run (`mon_component_stalls_total`). */
  readonly stalls: number;
  /** Writes of the kubelet stand-in the server refused. */
  readonly standInFailures: readonly string[];
}

/** The nodes of the stories that want old ones, registered ahead of the run (the young-node grace, spec 1.8). */
export interface PreparedStoryNodes {
  readonly kube: RealKube;
  readonly standIn: KubeletStandIn;
  /** Epoch ms (real clock) when the old stories' nodes were registered. */
  readonly registeredAt: number;
}

/** A node younger than this is still joining the cluster (mon's young-node grace, detect/grace.ts), ms. */
const YOUNG_MS = 600_000;

let prepared: Promise<PreparedStoryNodes> | undefined;

/**
 * Starts the kubelet stand-in on `timing` and registers the nodes of every story of `stories` that wants old
 * nodes, once per process: a story's nodes must be older than mon's young-node grace (10 minutes) when it
 * begins, and a real API server stamps a node's creation with the time it was created. src/testing/preload.ts
 * calls this as the test process starts, so the nodes have aged by the time the stories run.
 */
export function prepareStoryNodes(
  kube: Promise<RealKube>,
  stories: readonly Story[],
  timing: TimingProfile = RECORDED_TIMING,
): Promise<PreparedStoryNodes> {
  prepared ??= (async () => {
    const real = await kube;
    const connection = await connectKube({ kubeconfigText: real.kubeconfigText });
    const standIn = await startKubeletStandIn({
      connection,
      clock: createSystemClock(),
      logger: createSilentLogger(),
      nodes: stories.filter((s) => !s.youngNodes).flatMap((s) => nodesOf(s)),
      timing,
    });
    process.once("exit", () => standIn.stop());
    return { kube: real, standIn, registeredAt: Date.now() };
  })();
  return prepared;
}

/**
 * Tells `specs` side by side on the real control plane (issue 40): each story in a namespace named after it,
 * on nodes of its own (`<story>-worker-N`, run by the kubelet stand-in of `nodes`; old ones registered ahead,
 * young ones as the story starts), its pods pinned to them; one real daemon on the real clock watches the whole
 * cluster and delivers to a webhook. What each story told is the messages about its namespace and nodes,
 * judged with the same invariants and expected conversation as on the simulator. A story ends at its
 * `lengthSeconds`, or a minute after it told its whole expected conversation. Waits first, if need be, until
 * the old nodes are older than the young-node grace.
 */
export async function tellStoriesOnRealKube(
  nodes: PreparedStoryNodes,
  specs: readonly RealStorySpec[],
  options: { config?: Record<string, unknown> } = {},
): Promise<RealStoriesRun> {
  const { kube, standIn } = nodes;
  const began = Date.now();
  // MON_REAL_TRACE=1 says how the run goes, as it goes.
  const trace = (line: string) => {
    if (process.env.MON_REAL_TRACE) console.log(`real stories +${Math.round((Date.now() - began) / 1000)} s: ${line}`);
  };
  const clock = createSystemClock();
  const logger = createSilentLogger();
  const connection = await connectKube({ kubeconfigText: kube.kubeconfigText });
  const places = specs.map((spec, i) => placeOf(spec.story, i));
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
    const trace = (line: string) => {
      if (process.env.MON_REAL_TRACE)
        console.log(`real stories +${Math.round((Date.now() - began) / 1000)} s: ${line}`);
    };
    const aged = process.env.MON_REAL_SKIP_AGING ? 0 : nodes.registeredAt + YOUNG_MS + 5_000 - Date.now();
    if (aged > 0 && specs.some((s) => !s.story.youngNodes)) {
      trace(`waiting ${Math.round(aged / 1000)} s for the nodes to be older than the young-node grace`);
      await new Promise((resolve) => setTimeout(resolve, aged));
    }
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
    await standIn.addNodes(specs.filter((s) => s.story.youngNodes).flatMap((s) => nodesOf(s.story)));
    const clusters: RealStoryCluster[] = specs.map((_spec, i) =>
      realStoryCluster({ connection, standIn, place: places[i]!, pods: () => pods.values() }),
    );
    const startedAt = Date.now();
    trace(`${specs.length} stories started`);
    /** Every message so far, seconds from the stories' start. */
    const all = (): Told[] => daemon.told().map((m) => ({ ...m, t: (daemon.zeroMs + m.t * 1000 - startedAt) / 1000 }));
    /** The messages about a story (a summary covering several stories counts for each, with its own). */
    const mineOf = (told: readonly Told[], place: Place): Told[] =>
      told.flatMap((m) => {
        const covers = m.covers?.filter((id) => belongsTo(id, place));
        if (covers?.length) return [{ ...m, covers }];
        return m.incidentId && belongsTo(m.incidentId, place) ? [m] : [];
      });
    const toldOf = (place: StoryPlace) => mineOf(all(), place);
    const ended = await Promise.all(
      specs.map(async (spec, i) => {
        const cluster = clusters[i]!;
        for (const step of spec.story.steps)
          timers.push(setTimeout(() => step.run(cluster), Math.max(0, startedAt + step.t * 1000 - Date.now())));
        const expected = placedExpectation(spec.expected, places[i]!);
        const last = Math.max(...spec.story.steps.map((s) => s.t), spec.story.fixedAt ?? 0);
        for (;;) {
          const elapsed = (Date.now() - startedAt) / 1000;
          if (elapsed >= spec.story.lengthSeconds) break;
          const told = toldOf(places[i]!);
          const judged = judgeTimed(expected, spec.story.fixedAt, told);
          const quietFor = elapsed - Math.max(0, ...told.map((m) => m.t));
          // Its whole conversation told, every step taken, and a quiet minute since: nothing more is coming.
          if (elapsed > last && judged.same && quietFor >= 60) break;
          await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
        trace(`${spec.story.name} ended; waiting for its writes`);
        await cluster.flushed();
        trace(`${spec.story.name} done`);
        return (Date.now() - startedAt) / 1000;
      }),
    );
    const results = specs.map((spec, i): RealStoryResult => {
      const place = places[i]!;
      const told = toldOf(place);
      const expected = placedExpectation(spec.expected, place);
      return {
        story: spec.story.name,
        namespace: place.namespace,
        expected,
        told,
        judgement: judgeTimed(expected, spec.story.fixedAt, told),
        failures: clusters[i]!.failures(),
        seconds: ended[i]!,
      };
    });
    trace("judged; stopping");
    return {
      results,
      // The differential (a test beside this one) writes its own namespace and nodes while the stories run:
      // what mon tells about them is in its place, not a word about mon's sight.
      unplaced: all().filter((m) => [...places, DIFFERENTIAL].every((p) => mineOf([m], p).length === 0)),
      stalls: await daemon.stalls(),
      standInFailures: standIn.failures(),
    };
  } catch (error) {
    trace(`failed: ${(error as Error).stack ?? error}`);
    throw error;
  } finally {
    for (const t of timers) clearTimeout(t);
    trace("stopping the daemon");
    await run?.stop();
    trace("stopped");
    podInformer.stop();
  }
}

// --- internal ---

/** A story's nodes: `<story>-worker-N`, labelled with the story, on loopback. */
function nodesOf(story: Story): StandInNode[] {
  return Array.from({ length: story.nodes }, (_, n) => ({
    name: `${story.name}-worker-${n + 1}`,
    labels: { [STORY_LABEL]: story.name },
    address: "127.0.0.1",
  }));
}

/** The story's namespace (its name), node prefix, node label and ClusterIPs on the shared cluster. */
function placeOf(story: Story, index: number): StoryPlace {
  return {
    namespace: story.name,
    nodePrefix: story.name,
    nodeLabel: [STORY_LABEL, story.name],
    // The ClusterIPs the stories name (orders-db, postgres), each story's own in the real Service range
    // (10.0.0.0/24, whose first addresses the API server hands out itself).
    clusterIps: { "10.96.14.7": `10.0.0.${100 + index}`, "10.96.14.9": `10.0.0.${160 + index}` },
    serviceIps: serviceIpsOf(index),
  };
}

/** The namespace and node prefix of the differential (src/testing/real-differential.ts), run beside the stories. */
export const DIFFERENTIAL_PLACE = "differential";

/** What names a place's objects: its namespace and its nodes' prefix. */
type Place = Pick<StoryPlace, "namespace" | "nodePrefix">;
const DIFFERENTIAL: Place = { namespace: DIFFERENTIAL_PLACE, nodePrefix: DIFFERENTIAL_PLACE };

/** Services of the real stories per story (each story's own addresses: none is left to random allocation). */
const SERVICE_IPS_PER_PLACE = 8;

/**
 * The addresses of place `index`'s Services that name no ClusterIP: 8 of the real Service range (10.0.0.0/24)
 * that neither the API server's own `kubernetes` Service (10.0.0.1) nor any story's named addresses
 * (10.0.0.100 + index and 10.0.0.160 + index, placeOf; 40 kept for each) use, disjoint between places: the
 * stories in order, then the differential (src/testing/real-differential.ts). Throws past the 21st place.
 */
export function serviceIpsOf(index: number): string[] {
  const named = (n: number) => (n >= 100 && n < 140) || (n >= 160 && n < 200);
  const free = Array.from({ length: 252 }, (_, i) => i + 2).filter((n) => !named(n));
  const mine = free.slice(index * SERVICE_IPS_PER_PLACE, (index + 1) * SERVICE_IPS_PER_PLACE);
  if (mine.length < SERVICE_IPS_PER_PLACE) throw new Error(`no Service addresses left for story ${index}`);
  return mine.map((n) => `10.0.0.${n}`);
}

/** Whether an incident id names the story's namespace or nodes. */
function belongsTo(id: string, place: Place): boolean {
  return (
    id === `Namespace//${place.namespace}` ||
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
