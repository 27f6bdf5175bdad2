import { join } from "node:path";
import { stringify } from "yaml";
import { type Daemon, startDaemon } from "../app/daemon.ts";
import { connectKube } from "../kube/connection.ts";
import { createFakeClock, type FakeClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { replayTimeline } from "../sim/replay.ts";
import { recordedStory, startRecordedStory } from "../sim/scenarios/recorded.ts";
import { startSimulator, type Simulator } from "../sim/simulator.ts";
import type { SimControllers, TimingProfile } from "../sim/controllers/index.ts";
import { NS, simStoryCluster, type Story } from "../sim/stories/index.ts";
import type { Scenario } from "../sim/scenario.ts";
import { readyNode } from "../sim/scenarios/builders.ts";
import { loadTimeline, TIMELINES_DIR } from "../sim/timeline.ts";
import { type CaptureServer, startCaptureServer, waitUntil } from "./capture-server.ts";
import { consistent, deliverySettled, inconsistency } from "./cluster.ts";
import { parseConfig } from "./config.ts";

/** The kinds the recorded timelines hold (kind, API group, plural). */
const REPLAYED_KINDS: readonly (readonly [string, string, string])[] = [
  ["Pod", "", "pods"],
  ["Node", "", "nodes"],
  ["Service", "", "services"],
  ["Namespace", "", "namespaces"],
  ["ConfigMap", "", "configmaps"],
  ["PersistentVolumeClaim", "", "persistentvolumeclaims"],
  ["Event", "", "events"],
  ["EndpointSlice", "discovery.k8s.io", "endpointslices"],
  ["Deployment", "apps", "deployments"],
  ["ReplicaSet", "apps", "replicasets"],
  ["StatefulSet", "apps", "statefulsets"],
  ["DaemonSet", "apps", "daemonsets"],
  ["Job", "batch", "jobs"],
];

/** One message the webhook received: when (seconds of the recording) and what. */
export interface Told {
  readonly t: number;
  readonly action: string;
  readonly incidentId: string;
  readonly reason: string;
  readonly text: string;
  /** On a summary (a roll-up, the startup summary): the incidents it names, and what kind it is. */
  readonly covers?: readonly string[];
  readonly delivery?: string;
  /** On a summary: the reason of each problem it names, by incident id (the webhook body's `problems`). */
  readonly coverReasons?: Readonly<Record<string, string>>;
}

/** A webhook body as the judge reads it, arrived `t` seconds into the run. */
export function toldOf(
  body: {
    action: string;
    incidentId: string;
    reason: string;
    text: string;
    covers?: string[];
    delivery?: string;
    problems?: { incidentId: string; reason: string }[];
  },
  t: number,
): Told {
  return {
    t,
    action: body.action,
    incidentId: body.incidentId,
    reason: body.reason,
    text: body.text,
    ...(body.covers ? { covers: body.covers } : {}),
    ...(body.delivery ? { delivery: body.delivery } : {}),
    ...(body.problems ? { coverReasons: Object.fromEntries(body.problems.map((p) => [p.incidentId, p.reason])) } : {}),
  };
}

/** The real daemon watching a replayed timeline, every message captured by a webhook on loopback. */
export interface ReplayRun {
  /** The timeline or scenario being told. */
  readonly name: string;
  readonly sim: Simulator;
  readonly daemon: Daemon;
  readonly clock: FakeClock;
  /** Epoch ms on the fake clock of the recording's t=0. */
  readonly zeroMs: number;
  /** Seconds after t=0 by which everything the run sets in motion has happened. */
  readonly lengthSeconds: number;
  readonly hook: CaptureServer;
  /** Moves the fake clock to `t` seconds of the recording in steps of `stepMs`, letting the daemon see each step. */
  runTo(t: number, stepMs?: number): Promise<void>;
  /** The messages so far, with the recording second each arrived at. */
  told(): Told[];
  stop(): Promise<void>;
}

/**
 * Replays the recorded timeline `name` (src/sim/testdata/kube-apiserver-v1.32/timelines/<name>) through the
 * simulator on a fake clock, with the real daemon (passes every 250 ms as in production) delivering to a
 * webhook. Between clock steps it waits until the daemon's informers have seen every change the simulator
 * served, so the daemon observes the recording's real timing whatever the machine's speed.
 */
export async function startReplay(
  name: string,
  options: {
    config?: Record<string, unknown>;
    /** The folder of timelines holding `name` (the recorded control plane's by default). */
    dir?: string;
  } = {},
): Promise<ReplayRun> {
  const timeline = loadTimeline(join(options.dir ?? TIMELINES_DIR, name));
  const clock = createFakeClock(timeline.startMs);
  const sim = await startSimulator({ now: () => clock.now() });
  const replay = replayTimeline(sim, timeline, clock, {
    setLogs: (ns, pod, container, text, previous) => sim.setLogs(ns, pod, container, text, previous),
  });
  return watched({
    name,
    sim,
    clock,
    zeroMs: replay.zeroMs,
    lengthSeconds: timeline.lengthSeconds,
    stopSource: () => replay.stop(),
    config: options.config,
  });
}

/**
 * The same story as `startReplay(name)`, told instead to the simulator's own controllers
 * (src/sim/scenarios/recorded.ts): the driver's objects and actions at their recorded seconds, everything else
 * written by the controllers. The daemon starts at t=0 on the settled cluster, as it did on the recording.
 */
export async function startStory(
  name: string,
  options: {
    config?: Record<string, unknown>;
    /** The controllers' timing (the recorded one by default). */
    timing?: TimingProfile;
    /** Steps moved to another second: `[from, to]` (a fix told later, so the failure lasts under any timing). */
    moved?: readonly (readonly [number, number])[];
    /** Seconds the cluster runs before t=0 (30 by default; slow timings need longer to have everything up). */
    settleSeconds?: number;
  } = {},
): Promise<ReplayRun> {
  const recorded = recordedStory(name);
  const moved = new Map(options.moved ?? []);
  const story = { ...recorded, steps: recorded.steps.map((s) => ({ ...s, t: moved.get(s.t) ?? s.t })) };
  const settleSeconds = options.settleSeconds ?? 30;
  const clock = createFakeClock(story.timeline.startMs - settleSeconds * 1000);
  const sim = await startSimulator({
    now: () => clock.now(),
    controllers: clock,
    ...(options.timing ? { timing: options.timing } : {}),
  });
  const started = await startRecordedStory(story, sim, clock, { settleSeconds });
  return watched({
    name,
    sim,
    clock,
    zeroMs: started.zeroMs,
    lengthSeconds: story.lengthSeconds,
    stopSource: started.stop,
    config: options.config,
  });
}

/**
 * A story of the catalogue (src/sim/stories) told to the simulator's controllers running on `timing`, watched by
 * the real daemon: the nodes join `youngNodeAgeMs` before the story when it asks for young nodes (a day before
 * otherwise), the daemon takes its startup baseline on the empty cluster, and the story's steps run `phaseMs`
 * after that, at their seconds. t=0 is the story's start.
 */
export async function startTimedStory(
  story: Story,
  timing: { controllers: TimingProfile; youngNodeAgeMs: number; phaseMs: number },
  options: { config?: Record<string, unknown> } = {},
): Promise<ReplayRun> {
  const clock = createFakeClock(Date.UTC(2026, 5, 1, 9));
  const sim = await startSimulator({ now: () => clock.now(), controllers: clock, timing: timing.controllers });
  const joined = clock.now() + 10_000 - (story.youngNodes ? timing.youngNodeAgeMs : 86_400_000);
  for (let i = 1; i <= story.nodes; i++) sim.apply(readyNode(`worker-${i}`, joined));
  sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
  await clock.advance(1_000);
  const zeroMs = clock.now() + 9_000 + timing.phaseMs;
  const cluster = simStoryCluster(sim, { zeroMs, seconds: story.steps.map((s) => s.t) });
  const timers = story.steps.map((step) =>
    clock.setTimer(() => step.run(cluster), zeroMs + step.t * 1000 - clock.now()),
  );
  // mon starts late: the story runs to that second unwatched (issue 52 item 1).
  if (story.monStartsAt !== undefined)
    while (clock.now() < zeroMs + story.monStartsAt * 1000)
      await clock.advance(Math.min(1_000, zeroMs + story.monStartsAt * 1000 - clock.now()));
  const run = await watched({
    name: story.name,
    sim,
    clock,
    zeroMs,
    lengthSeconds: story.lengthSeconds,
    stopSource: () => {
      for (const cancel of timers) cancel();
    },
    config: { ...story.config, ...options.config },
  });
  // The startup baseline is taken on the cluster as it is when mon starts: what the story breaks after is new.
  run.daemon.passNow();
  return run;
}

/**
 * A scripted scenario (`mon demo`'s story) on a fake clock, as `mon demo` runs it: every node has a fake kubelet
 * on loopback, each step runs at its time; t=0 is the scenario's start.
 */
export async function startScenario(
  scenario: Scenario,
  options: { config?: Record<string, unknown>; clusterName?: string } = {},
): Promise<ReplayRun> {
  const clock = createFakeClock(Date.UTC(2026, 5, 1, 9));
  const sim = await startSimulator({ now: () => clock.now() });
  scenario.setup(sim, clock.now());
  for (const node of sim.store.list(sim.typeOf("", "v1", "nodes"), undefined))
    await sim.startKubelet(node.metadata.name);
  const zeroMs = clock.now();
  const timers = scenario.steps.map((step) => clock.setTimer(() => step.run(sim, clock.now()), step.atMs));
  const last = Math.max(0, ...scenario.steps.map((s) => s.atMs)) / 1000;
  return watched({
    name: scenario.name,
    sim,
    clock,
    zeroMs,
    lengthSeconds: last + 10,
    stopSource: () => {
      for (const cancel of timers) cancel();
    },
    config: options.config,
    clusterName: options.clusterName,
  });
}

/**
 * An empty cluster run by the simulator's controllers on a fake clock (nodes `worker-1..N`, Ready for a day
 * unless `nodeAgeMs` says otherwise; the controllers' durations from `timing`),
 * watched by the real daemon: tests create workloads and faults with `run.sim` (as a user would with kubectl)
 * and move time with `runTo`. t=0 is when the daemon started.
 */
export async function startCluster(
  options: {
    nodes?: number;
    config?: Record<string, unknown>;
    clusterName?: string;
    /** The controllers' timing (the recorded one by default). */
    timing?: TimingProfile;
    /** How long the nodes have been in the cluster when the daemon starts, ms (a day by default). */
    nodeAgeMs?: number;
  } = {},
): Promise<ReplayRun & { controllers: SimControllers }> {
  const clock = createFakeClock(Date.UTC(2026, 5, 1, 9));
  const sim = await startSimulator({
    now: () => clock.now(),
    controllers: clock,
    ...(options.timing ? { timing: options.timing } : {}),
  });
  for (let i = 1; i <= (options.nodes ?? 3); i++)
    sim.apply(readyNode(`worker-${i}`, clock.now() - (options.nodeAgeMs ?? 86_400_000)));
  sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } });
  await clock.advance(1_000);
  const run = await watched({
    name: "cluster",
    sim,
    clock,
    zeroMs: clock.now(),
    lengthSeconds: 0,
    stopSource: () => {},
    config: options.config,
    clusterName: options.clusterName,
  });
  if (!sim.controllers) throw new Error("the simulator runs no controllers");
  return { ...run, controllers: sim.controllers };
}

// --- internal ---

async function watched(source: {
  name: string;
  sim: Simulator;
  clock: FakeClock;
  zeroMs: number;
  lengthSeconds: number;
  stopSource: () => void;
  config?: Record<string, unknown>;
  clusterName?: string;
}): Promise<ReplayRun> {
  const { name, sim, clock, zeroMs } = source;
  const options = { config: source.config };
  const hook = await startCaptureServer();
  const config = parseConfig(
    stringify({
      ...options.config,
      app: { clusterName: source.clusterName ?? "replay", disableStartupMessage: true },
      healthCheck: { enabled: false },
      alert: { webhook: { url: `${hook.url}/mon` } },
    }),
    "replay.yaml",
    {},
  );
  // The API server's bookmarks follow the replay's clock, as they follow real time in a cluster (issue 30).
  sim.server.useTimers(clock);
  const daemon = await startDaemon({
    config,
    connection: await connectKube({ kubeconfigText: sim.kubeconfig() }),
    clock,
    logger: createSilentLogger(),
    stdout: () => {},
  });
  await waitUntil(() => daemon.health.ready(), "informers to sync", 10_000);
  const arrivals: number[] = [];
  // Written and sent: a timing profile may delay what was written on its way to the watchers.
  const version = () => `${sim.store.resourceVersion()}/${sim.store.pendingWatchEvents()}`;
  let caughtUp = version();
  const caughtUpTo = async () => {
    const target = version();
    if (target === caughtUp) return;
    try {
      await waitUntil(() => consistent(sim, daemon, REPLAYED_KINDS), "the daemon to see the replayed events");
    } catch (error) {
      throw new Error(`${(error as Error).message}: ${inconsistency(sim, daemon, REPLAYED_KINDS)}`);
    }
    caughtUp = target;
  };
  return {
    name,
    sim,
    daemon,
    clock,
    zeroMs,
    lengthSeconds: source.lengthSeconds,
    hook,
    async runTo(t, stepMs = 250) {
      const until = zeroMs + t * 1000;
      let still = 0;
      while (clock.now() < until) {
        // One timer instant at a time: whatever fires next (a recorded event, a pass, a retry) runs after the
        // daemon has seen everything served before it, as on a real cluster where time does not jump.
        const next = clock.nextAt() ?? until;
        const target = Math.min(until, Math.max(next, clock.now()), clock.now() + stepMs);
        still = target === clock.now() ? still + 1 : 0;
        await clock.advance(still > 20 ? 1 : target - clock.now());
        await caughtUpTo();
        // A crash's log is read over HTTP before it is announced: wait for the read, so passes see what they
        // would have seen on time.
        await waitUntil(() => !daemon.evidencePending(), "log evidence to be read");
        // Messages are routed and sent asynchronously: let each settle before time moves on.
        await deliverySettled(daemon);
        while (arrivals.length < hook.requests.length) arrivals.push((clock.now() - zeroMs) / 1000);
      }
    },
    told: () => hook.requests.map((r, i) => toldOf(r.json(), arrivals[i] ?? Number.NaN)),
    async stop() {
      source.stopSource();
      await daemon.stop(0);
      await sim.stop();
      await hook.close();
    },
  };
}
