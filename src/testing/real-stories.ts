import { join } from "node:path";
import { connectKube } from "../kube/connection.ts";
import { podCache } from "./pod-cache.ts";
import { createSystemClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { RECORDED_TIMING, type TimingProfile } from "../sim/controllers/index.ts";
import { type KubeletStandIn, startKubeletStandIn, type StandInNode } from "../sim/standin/standin.ts";
import {
  type RealStoryCluster,
  realStoryCluster,
  type StoryKubelets,
  type StoryPlace,
} from "../sim/standin/story-cluster.ts";
import { STORIES, type Story } from "../sim/stories/index.ts";
import { TRUST_STORIES } from "../sim/stories/trust.ts";
import { mineOf, type Place, unplacedOf } from "./placing.ts";
import type { RealKube } from "./real-kube.ts";
import { type RealNode, realNodeMissing } from "./real-node.ts";
import { recordTimeline } from "./timeline-recorder.ts";
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

/**
 * Resolves once nodes registered at `registeredAt` (epoch ms) are past mon's young-node grace, 5 s to spare (at
 * once with MON_REAL_SKIP_AGING): until then mon holds what fails on their pods (spec 1.8).
 */
export async function pastYoungNodeGrace(registeredAt: number): Promise<void> {
  const aged = process.env.MON_REAL_SKIP_AGING ? 0 : registeredAt + YOUNG_MS + 5_000 - Date.now();
  if (aged > 0) await new Promise((resolve) => setTimeout(resolve, aged));
}

/** How far apart the stories told side by side on the real node begin, ms. */
const REAL_NODE_STAGGER_MS = 7_300;

let prepared: Promise<PreparedStoryNodes> | undefined;

/**
 * The catalogue's stories told with stand-in nodes in a test process: those written for real pods are told on
 * the real node instead when it can run here (in CI it must). Told in both places at once, each story's twin
 * would be in the other daemon's view: the same Job's error in two namespaces is one error in two workloads, and
 * twins due in one pass are one roll-up.
 */
export function storiesOnStandIns(): readonly Story[] {
  return realNodeMissing() === undefined ? STORIES.filter((story) => !story.realNode) : STORIES;
}

/** Every story whose stand-in nodes a test process registers ahead: the catalogue's and the trust stories. */
export function storiesWithStandInNodes(): readonly Story[] {
  return [...storiesOnStandIns(), ...TRUST_STORIES];
}

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
  options: {
    config?: Record<string, unknown>;
    /** The place index of the first spec (its Service addresses): a run beside the catalogue's starts past it. */
    firstPlace?: number;
    /** Seconds after the stories start when the daemon starts (a trust story's `monStartsAt`). */
    daemonAt?: number;
  } = {},
): Promise<RealStoriesRun> {
  const { kube, standIn } = nodes;
  if (specs.some((s) => !s.story.youngNodes)) await pastYoungNodeGrace(nodes.registeredAt);
  return tellPlaced({
    kube,
    kubelets: {
      stop: (node) => standIn.stopKubelet(node),
      start: (node) => standIn.startKubelet(node),
      async restart(node) {
        standIn.stopKubelet(node);
        await standIn.startKubelet(node);
      },
    },
    tellings: specs.map((spec, i) => ({ ...spec, place: placeOf(spec.story, (options.firstPlace ?? 0) + i) })),
    before: () => standIn.addNodes(specs.filter((s) => s.story.youngNodes).flatMap((s) => nodesOf(s.story))),
    clusterName: "real",
    ...(options.config ? { config: options.config } : {}),
    ...(options.daemonAt !== undefined ? { daemonAt: options.daemonAt } : {}),
    standInFailures: () => standIn.failures(),
  });
}

/**
 * Tells `specs` on the real node (issue 50): real pods run by a real kubelet, each story in its own namespace
 * (`real-<story>`), its nodes all the real node, its containers doing what their commands say (the simulated
 * kubelet's annotations are left out), its steps that stop, start or restart a kubelet acting on the real
 * kubelet. Stories whose `realNode` is `together` are told side by side; each `alone` story then on its own (it
 * acts on the node every story runs on). One real daemon watches the whole cluster for each group; each story is
 * judged as on the simulator, plus: no message names a change nobody made. Waits first, if need be, until the
 * node is older than the young-node grace.
 */
export async function tellStoriesOnRealNode(
  node: RealNode,
  specs: readonly RealStorySpec[],
  options: {
    config?: Record<string, unknown>;
    trace?: (line: string) => void;
    /** Runs beside the stories told side by side (on pods of its own), and ends before any `alone` story begins. */
    beside?: () => Promise<void>;
    /** Records each story's watch-event timeline into `record/<story>` (issue 50: the real-kubelet fixtures). */
    record?: string;
  } = {},
): Promise<RealStoriesRun> {
  await pastYoungNodeGrace(node.registeredAt);
  const kubelets: StoryKubelets = {
    stop: () => node.stopKubelet(),
    start: () => node.startKubelet(),
    async restart() {
      await node.stopKubelet();
      await node.startKubelet();
    },
  };
  const groups = [
    specs.filter((s) => s.story.realNode === "together"),
    ...specs.filter((s) => s.story.realNode === "alone").map((s) => [s]),
  ].filter((g) => g.length > 0);
  const runs: RealStoriesRun[] = [];
  let beside = options.beside?.();
  for (const group of groups) {
    // Nothing else runs on the node while a story acts on the node itself.
    if (group.some((s) => s.story.realNode === "alone")) {
      await beside;
      beside = undefined;
    }
    options.trace?.(`real node: ${group.map((s) => s.story.name).join(", ")}`);
    runs.push(
      await tellPlaced({
        kube: node.kube,
        kubelets,
        tellings: group.map((spec) => ({ ...spec, place: realNodePlace(spec.story, node.name), realNode: true })),
        clusterName: "real-node",
        // Many of them open at once (a config error, an OOM kill): apart, each is told as itself, not in a roll-up.
        staggerMs: REAL_NODE_STAGGER_MS,
        ...(options.config ? { config: options.config } : {}),
        ...(options.record ? { record: options.record } : {}),
      }),
    );
  }
  await beside;
  return {
    results: runs.flatMap((r) => r.results),
    unplaced: runs.flatMap((r) => r.unplaced),
    stalls: runs.reduce((n, r) => n + r.stalls, 0),
    standInFailures: [],
  };
}

/** The place of a story told on the real node: its own namespace, every node of it the real node. */
export function realNodePlace(story: Story, node: string): StoryPlace {
  const index = REAL_NODE_PLACES.indexOf(story.name);
  return {
    namespace: `real-${story.name}`,
    nodePrefix: `real-${story.name}`,
    nodes: Object.fromEntries(Array.from({ length: story.nodes }, (_, n) => [`worker-${n + 1}`, node])),
    nodeLabel: ["kubernetes.io/hostname", node],
    clusterIps: {},
    serviceIps: serviceIpsOf(REAL_NODE_PLACE_BASE + (index >= 0 ? index : REAL_NODE_PLACES.length)),
  };
}

/** One story to tell where it is placed. */
interface PlacedTelling extends RealStorySpec {
  readonly place: StoryPlace;
  readonly realNode?: boolean;
}

/** The places of every telling of this process so far: what mon says of another run's story is in its place. */
const PLACES: Place[] = [];

/**
 * Says that a namespace and nodes are another test's (the kubelet differential's): what mon tells of them while
 * stories run beside it is in its place, not a word about mon's sight.
 */
export function placeElsewhere(namespace: string, nodes: readonly string[]): void {
  PLACES.push({ namespace, nodePrefix: namespace, nodes: Object.fromEntries(nodes.map((n) => [n, n])) });
}

/** Tells `tellings` side by side, one daemon watching, each judged by what was told of its place. */
async function tellPlaced(options: {
  kube: RealKube;
  kubelets: StoryKubelets;
  tellings: readonly PlacedTelling[];
  clusterName: string;
  config?: Record<string, unknown>;
  before?: () => Promise<void>;
  standInFailures?: () => readonly string[];
  /** A folder to record each story's timeline into (`<folder>/<story>`). */
  record?: string;
  /**
   * How far apart the stories begin, ms (each story's times count from its own start): stories that open at
   * once, told side by side, would otherwise be due in the same pass and told as one roll-up.
   */
  staggerMs?: number;
  /** Seconds after the stories start when the daemon starts; before them without it. */
  daemonAt?: number;
}): Promise<RealStoriesRun> {
  const { kube, tellings } = options;
  const specs = tellings;
  const began = Date.now();
  // MON_REAL_TRACE=1 says how the run goes, as it goes.
  const trace = (line: string) => {
    if (process.env.MON_REAL_TRACE)
      console.log(`${options.clusterName} stories +${Math.round((Date.now() - began) / 1000)} s: ${line}`);
  };
  const clock = createSystemClock();
  const logger = createSilentLogger();
  const connection = await connectKube({ kubeconfigText: kube.kubeconfigText });
  const places = tellings.map((t) => t.place);
  const offset = (i: number) => i * (options.staggerMs ?? 0);
  PLACES.push(...places);
  const podInformer = podCache(connection, clock, logger);
  const { pods } = podInformer;
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
    const startDaemon = () =>
      startRealDaemon({
        kubeconfigText: kube.kubeconfigText,
        clusterName: options.clusterName,
        config: { ...options.config },
      });
    if (options.daemonAt === undefined) run = await startDaemon();
    await options.before?.();
    let zero = Date.now();
    const recordings = options.record
      ? await Promise.all(
          tellings.map((t, i) =>
            recordTimeline(connection, {
              namespace: t.place.namespace,
              nodes: Object.values(t.place.nodes ?? {}),
              zeroMs: () => zero + offset(i),
            }),
          ),
        )
      : [];
    const startedAt = Date.now();
    zero = startedAt;
    const clusters: RealStoryCluster[] = specs.map((spec, i) =>
      realStoryCluster({
        connection,
        kubelets: options.kubelets,
        place: places[i]!,
        pods: () => pods.values(),
        schedule: { zeroMs: startedAt + offset(i), seconds: spec.story.steps.map((s) => s.t) },
        ...(tellings[i]!.realNode ? { realNode: true } : {}),
      }),
    );
    specs.forEach((spec, i) => {
      for (const step of spec.story.steps)
        timers.push(
          setTimeout(() => step.run(clusters[i]!), Math.max(0, startedAt + offset(i) + step.t * 1000 - Date.now())),
        );
    });
    trace(`${specs.length} stories started`);
    if (options.daemonAt !== undefined) {
      // mon starts while the stories run: what already fails then is there when it begins to watch.
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, startedAt + options.daemonAt! * 1000 - Date.now())),
      );
      run = await startDaemon();
      trace(`daemon started at ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
    }
    const daemon = run!;
    /** Every message so far, seconds from the first story's start. */
    const all = (): Told[] => daemon.told().map((m) => ({ ...m, t: (daemon.zeroMs + m.t * 1000 - startedAt) / 1000 }));
    /** What was told of story `i`'s place, seconds from its own start. */
    const toldOf = (i: number) =>
      mineOf(all(), places[i]!, [...PLACES, DIFFERENTIAL]).map((m) => ({ ...m, t: m.t - offset(i) / 1000 }));
    const ended = await Promise.all(
      specs.map(async (spec, i) => {
        const cluster = clusters[i]!;
        const expected = placedExpectation(spec.expected, places[i]!);
        const last = Math.max(...spec.story.steps.map((s) => s.t), spec.story.fixedAt ?? 0);
        for (;;) {
          const elapsed = (Date.now() - startedAt - offset(i)) / 1000;
          if (elapsed >= spec.story.lengthSeconds) break;
          const told = toldOf(i);
          const judged = judgeTimed(expected, spec.story.fixedAt, told);
          const quietFor = elapsed - Math.max(0, ...told.map((m) => m.t));
          // Its whole conversation told, every step taken a minute ago, and a quiet minute since: nothing more is
          // coming (a step's own effects, a kubelet's restart, take their time to show).
          if (elapsed > last + 60 && judged.same && quietFor >= 60) break;
          await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
        trace(`${spec.story.name} ended; waiting for its writes`);
        await cluster.flushed();
        trace(`${spec.story.name} done`);
        return (Date.now() - startedAt - offset(i)) / 1000;
      }),
    );
    const results = specs.map((spec, i): RealStoryResult => {
      const place = places[i]!;
      const told = toldOf(i);
      const expected = placedExpectation(spec.expected, place);
      const judgement = judgeTimed(expected, spec.story.fixedAt, told);
      // Issue 50: a change nobody made (the control plane's own writes) is never what changed.
      const nobodys = told
        .filter((m) =>
          /^Changed: .*\bby (kube-controller-manager|kube-scheduler|kubelet|kube-apiserver)\b/m.test(m.text),
        )
        .map(
          (m) =>
            `a change nobody made: ${m.incidentId} at ${m.t.toFixed(1)} s says "${/^Changed: .*$/m.exec(m.text)?.[0]}"`,
        );
      return {
        story: spec.story.name,
        namespace: place.namespace,
        expected,
        told,
        judgement: { ...judgement, violations: [...judgement.violations, ...nobodys] },
        failures: clusters[i]!.failures(),
        seconds: ended[i]!,
      };
    });
    recordings.forEach((recording, i) => {
      const r = results[i]!;
      const wrote = recording.write(join(options.record!, r.story), recordingReadme(r, specs[i]!.story));
      trace(`${r.story}: recorded ${wrote.initial} objects, ${wrote.events} events and ${wrote.logs} logs`);
    });
    trace("judged; stopping");
    return {
      results,
      // Other runs beside this one (the differential, the stories of another kind of node) write their own
      // namespaces and nodes while these run: what mon tells about them is in its place, not a word about mon's
      // sight.
      unplaced: unplacedOf(all(), [...PLACES, DIFFERENTIAL]),
      stalls: await daemon.stalls(),
      standInFailures: options.standInFailures?.() ?? [],
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
    // A real node is shared by every telling: what a story left running there would be the next one's pods.
    for (const t of tellings)
      if (t.realNode)
        await connection
          .request(`/api/v1/namespaces/${t.place.namespace}`, { method: "DELETE" })
          .then((r) => r.body?.cancel())
          .catch(() => {});
  }
}

/**
 * What mon told on the real node, as a recording's README.md lists it (`recordingReadme` writes it): `- t=…:
 * action \`id\` reason[, covering \`id\`, …]`, a roll-up with the incidents it covered. Times in seconds.
 */
export function toldInRecording(readme: string): Told[] {
  return [...readme.matchAll(/^- t=([\d.]+): (announce|update|resolve) `([^`]+)` (\w+)(?:, covering (.+))?$/gm)].map(
    (m) => ({
      t: Number(m[1]),
      action: m[2]!,
      incidentId: m[3]!,
      reason: m[4]!,
      text: "",
      ...(m[5] ? { delivery: "roll-up" as const, covers: [...m[5].matchAll(/`([^`]+)`/g)].map((c) => c[1]!) } : {}),
    }),
  );
}

/** The README of a story's recorded timeline: what happened, at which seconds, and what mon told. */
function recordingReadme(r: RealStoryResult, story: Story): string {
  return [
    `# ${story.name} on a real node (kubelet v1.32.13, containerd 1.6, runc 1.1)`,
    "",
    `${story.description}.`,
    "",
    "Recorded by `bun scripts/record-real-node.ts` from a real kube-apiserver, kube-controller-manager and",
    "kube-scheduler v1.32.13 with a real kubelet, the story told at its quick schedule (src/sim/stories). The",
    `story ran in namespace \`${r.namespace}\` on node \`localhost\`; \`t\` counts from its first step.`,
    "",
    "## Steps",
    "",
    ...story.steps.map((s) => `- t=${s.t}: ${s.say}`),
    ...(story.fixedAt !== undefined ? ["", `Fixed at t=${story.fixedAt}.`] : []),
    "",
    "## What mon told on the real node",
    "",
    ...(r.told.length
      ? r.told.map(
          (m) =>
            `- t=${m.t.toFixed(1)}: ${m.action} \`${m.incidentId}\` ${m.reason}${m.covers?.length ? `, covering ${m.covers.map((c) => `\`${c}\``).join(", ")}` : ""}`,
        )
      : ["- nothing"]),
    "",
  ].join("\n");
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

/** The stories told on the real node, in catalogue order: each one's place index after REAL_NODE_PLACE_BASE. */
const REAL_NODE_PLACES: readonly string[] = STORIES.filter((s) => s.realNode).map((s) => s.name);

/** The first place index of the stories told on the real node: after the catalogue's and the differential's. */
const REAL_NODE_PLACE_BASE = STORIES.length + 1;

/** The first place index of the trust stories (src/sim/stories/trust.ts): after those told on the real node. */
export const TRUST_PLACE_BASE = REAL_NODE_PLACE_BASE + REAL_NODE_PLACES.length;

/** The namespace and node prefix of the differential (src/testing/real-differential.ts), run beside the stories. */
export const DIFFERENTIAL_PLACE = "differential";

const DIFFERENTIAL: Place = { namespace: DIFFERENTIAL_PLACE, nodePrefix: DIFFERENTIAL_PLACE };

/** Services of the real stories per story (each story's own addresses: none is left to random allocation). */
const SERVICE_IPS_PER_PLACE = 3;

/**
 * The addresses of place `index`'s Services that name no ClusterIP: 8 of the real Service range (10.0.0.0/24)
 * that neither the API server's own `kubernetes` Service (10.0.0.1) nor any story's named addresses
 * (10.0.0.100 + index and 10.0.0.160 + index, placeOf; 40 kept for each) use, disjoint between places: the
 * stories in order, then the differential (src/testing/real-differential.ts), then the stories told on the real
 * node (REAL_NODE_PLACE_BASE on). Throws past the 57th place.
 */
export function serviceIpsOf(index: number): string[] {
  const named = (n: number) => (n >= 100 && n < 140) || (n >= 160 && n < 200);
  const free = Array.from({ length: 252 }, (_, i) => i + 2).filter((n) => !named(n));
  const mine = free.slice(index * SERVICE_IPS_PER_PLACE, (index + 1) * SERVICE_IPS_PER_PLACE);
  if (mine.length < SERVICE_IPS_PER_PLACE) throw new Error(`no Service addresses left for story ${index}`);
  return mine.map((n) => `10.0.0.${n}`);
}

/** The expectation with `shop` and `worker-N` moved to the story's namespace and nodes (threads, fixes, mentions). */
export function placedExpectation(expected: TimedExpectation, place: StoryPlace): TimedExpectation {
  const move = (id: string) => {
    // A thread line (`Node//worker-1: announce NodeLost, …`) or an incident id.
    const node = /^Node\/\/(worker-\d+)(?=:|$)/.exec(id)?.[1];
    if (node && place.nodes?.[node]) return id.replace(`Node//${node}`, `Node//${place.nodes[node]}`);
    return id
      .replaceAll("/shop/", `/${place.namespace}/`)
      .replaceAll(".shop:", `.${place.namespace}:`)
      .replace(/^Node\/\/worker-/, `Node//${place.nodePrefix}-worker-`);
  };
  return {
    ...expected,
    threads: expected.threads.map(move),
    ...(expected.fixes
      ? { fixes: Object.fromEntries(Object.entries(expected.fixes).map(([id, t]) => [move(id), t])) }
      : {}),
    ...(expected.mentions
      ? { mentions: Object.fromEntries(Object.entries(expected.mentions).map(([id, words]) => [move(id), words])) }
      : {}),
    ...(expected.notBack ? { notBack: expected.notBack.map(move) } : {}),
  };
}
