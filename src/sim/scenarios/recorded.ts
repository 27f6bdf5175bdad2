import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FATE_ANNOTATION } from "../controllers/index.ts";
import type { Simulator } from "../simulator.ts";
import type { KubeObject } from "../store.ts";
import { loadTimeline, TIMELINES_DIR, type Timeline } from "../timeline.ts";

/** One thing the recording's driver did, `t` seconds after t=0 (steps.jsonl). */
interface DriverStep {
  readonly t: number;
  readonly actor: string;
  readonly action: string;
  readonly target: string;
}

/** A timed change of a recorded story. */
export interface StoryStep {
  readonly t: number;
  readonly say: string;
  run(sim: Simulator): void;
}

/**
 * A recorded scenario told again to the simulator's own controllers (docs/simulator.md "Recorded stories"):
 * the objects the driver created before t=0, and each later driver action at its recorded second. Everything
 * else (ReplicaSets, pods, statuses, EndpointSlices, Events) is the controllers' work, so their timing can be
 * compared with the recording and mon can be tested against both.
 */
export interface RecordedStory {
  readonly name: string;
  readonly timeline: Timeline;
  /** Manifests to create before t=0 (Nodes with their status, as their kubelets would have posted it). */
  readonly setup: readonly KubeObject[];
  readonly steps: readonly StoryStep[];
  /** Seconds after t=0 by which everything the story sets in motion has happened. */
  readonly lengthSeconds: number;
}

/**
 * What the recording's kubelet emulator was told to do, as fates (the driver's `fault:` and `fix:` lines, and
 * the Job whose pods fail): these are the only parts of a story that are not kubectl commands.
 */
const FAULTS: Record<string, { prepare?: (o: KubeObject) => KubeObject; steps: StoryStep[]; lengthSeconds?: number }> =
  {
    statefulset_crash: {
      // The recording's emulator compressed the back-off (2 s, then 15 s); the controllers' kubelet uses the real
      // one (10 s doubling), so after the fix at t=130 ledger-1 restarts only at t≈163, is Ready at t≈164, and its
      // crash loop is over once it has stayed up as long as its last back-off (160 s), at t≈323.
      lengthSeconds: 360,
      steps: [
        {
          t: 10,
          say: "ledger-1's process exits on every start",
          run: (sim) => setFate(sim, "tl-statefulset-crash", "ledger-1", "crash"),
        },
        {
          t: 130,
          say: "ledger-1 starts cleanly again",
          run: (sim) => setFate(sim, "tl-statefulset-crash", "ledger-1", undefined),
        },
      ],
    },
    readiness_flap: {
      steps: [
        {
          t: 10,
          say: "/healthz of both search pods returns 503",
          run: (sim) => setFates(sim, "tl-readiness-flap", "unready"),
        },
        { t: 140.7, say: "/healthz returns 200 again", run: (sim) => setFates(sim, "tl-readiness-flap", undefined) },
      ],
    },
    node_lost_daemonset: {
      steps: [
        { t: 10, say: "tl-node-b's kubelet goes silent", run: (sim) => sim.controllers?.stopKubelet("tl-node-b") },
        { t: 150, say: "tl-node-b's kubelet is back", run: (sim) => sim.controllers?.startKubelet("tl-node-b") },
      ],
    },
    job_backoff: {
      // The recorded Job's pods all exit 1: its template carries that fate.
      prepare: (o) =>
        o.kind === "Job"
          ? {
              ...o,
              spec: {
                ...o.spec,
                template: {
                  ...o.spec.template,
                  metadata: { ...o.spec.template.metadata, annotations: { [FATE_ANNOTATION]: "fail" } },
                },
              },
            }
          : o,
      steps: [],
    },
  };

/** The recorded story `name` (a directory of src/sim/testdata/kube-apiserver-v1.32/timelines). */
export function recordedStory(name: string): RecordedStory {
  const dir = join(TIMELINES_DIR, name);
  const timeline = loadTimeline(dir);
  const driver = readFileSync(join(dir, "steps.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as DriverStep)
    .filter((s) => s.actor === "driver");
  const faults = FAULTS[name] ?? { steps: [] };
  const prepare = faults.prepare ?? ((o: KubeObject) => o);
  const setup: KubeObject[] = timeline.initial.filter((o) => o.kind === "Node").map(nodeManifest);
  const steps: StoryStep[] = [...faults.steps];
  for (const step of driver) {
    const created = /^kubectl create (namespace|\w+)/.exec(step.action);
    if (created && !step.target.startsWith("PersistentVolume/")) {
      const object =
        step.t < 0 ? findInitial(timeline, step.target) : findEvent(timeline, step.target, step.t, "ADDED");
      if (!object) throw new Error(`recorded story ${name}: no object for ${step.target}`);
      const manifest = prepare(manifestOf(object));
      if (step.t < 0) setup.push(manifest);
      else steps.push({ t: step.t, say: step.action, run: (sim) => sim.apply(manifest) });
    } else if (/^kubectl (set image|scale)/.test(step.action)) {
      const after = findEvent(timeline, step.target, step.t, "MODIFIED");
      if (!after) throw new Error(`recorded story ${name}: no change for ${step.target}`);
      steps.push({
        t: step.t,
        say: step.action,
        run: (sim) => {
          const type = sim.registry.findByKind(after.apiVersion, after.kind);
          if (type)
            sim.store.patch(type, after.metadata.namespace, after.metadata.name, "application/merge-patch+json", {
              spec: after.spec,
            });
        },
      });
    }
  }
  return {
    name,
    timeline,
    setup,
    steps: steps.sort((a, b) => a.t - b.t),
    lengthSeconds: faults.lengthSeconds ?? timeline.lengthSeconds,
  };
}

/**
 * Starts a story on a simulator with controllers: creates the setup, lets `settleSeconds` pass on the clock so
 * everything is running before t=0, then schedules each step at its second on the clock. Returns the epoch ms
 * of t=0 and a stop that cancels the steps not yet run.
 */
export async function startRecordedStory(
  story: RecordedStory,
  sim: Simulator,
  clock: { now(): number; advance(ms: number): Promise<void>; setTimer(fn: () => void, delayMs: number): () => void },
  options: { settleSeconds?: number } = {},
): Promise<{ zeroMs: number; stop(): void }> {
  for (const object of story.setup) sim.apply(object);
  await clock.advance((options.settleSeconds ?? 30) * 1000);
  const zeroMs = clock.now();
  const timers = story.steps.map((step) => clock.setTimer(() => step.run(sim), step.t * 1000));
  return {
    zeroMs,
    stop() {
      for (const cancel of timers) cancel();
    },
  };
}

// --- internal ---

function parseTarget(target: string): { kind: string; namespace?: string; name: string } {
  const parts = target.split("/");
  return parts.length === 3
    ? { kind: parts[0] ?? "", namespace: parts[1], name: parts[2] ?? "" }
    : { kind: parts[0] ?? "", name: parts[1] ?? "" };
}

function matches(o: KubeObject, target: string): boolean {
  const t = parseTarget(target);
  return (
    o.kind === t.kind &&
    o.metadata?.name === t.name &&
    (t.namespace === undefined || o.metadata?.namespace === t.namespace)
  );
}

function findInitial(timeline: Timeline, target: string): KubeObject | undefined {
  return (
    timeline.initial.find((o) => matches(o, target)) ?? timeline.events.find((e) => matches(e.object, target))?.object
  );
}

function findEvent(
  timeline: Timeline,
  target: string,
  after: number,
  type: "ADDED" | "MODIFIED",
): KubeObject | undefined {
  return timeline.events.find((e) => e.t >= after && e.type === type && matches(e.object, target))?.object;
}

/** What a user wrote: name, namespace, labels, annotations and the content, without what the server added. */
function manifestOf(o: KubeObject): KubeObject {
  const annotations = { ...(o.metadata?.annotations ?? {}) };
  delete annotations["kubectl.kubernetes.io/last-applied-configuration"];
  delete annotations["deployment.kubernetes.io/revision"];
  const { status: _status, metadata, ...rest } = o;
  return {
    ...rest,
    metadata: {
      name: metadata.name,
      ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
      ...(metadata.labels ? { labels: metadata.labels } : {}),
      ...(Object.keys(annotations).length ? { annotations } : {}),
    },
  };
}

/** A Node keeps its creation time and status: it existed, Ready, long before the story. */
function nodeManifest(o: KubeObject): KubeObject {
  const manifest = manifestOf(o);
  return {
    ...manifest,
    metadata: { ...manifest.metadata, creationTimestamp: o.metadata.creationTimestamp },
    status: o.status,
  };
}

function setFate(sim: Simulator, namespace: string, pod: string, fate: string | undefined): void {
  const type = sim.registry.findByKind("v1", "Pod");
  if (!type) return;
  sim.store.patch(type, namespace, pod, "application/merge-patch+json", {
    metadata: { annotations: { [FATE_ANNOTATION]: fate ?? null } },
  });
}

function setFates(sim: Simulator, namespace: string, fate: string | undefined): void {
  const type = sim.registry.findByKind("v1", "Pod");
  if (!type) return;
  for (const pod of sim.store.list(type, namespace))
    if (!pod.metadata.deletionTimestamp) setFate(sim, namespace, pod.metadata.name, fate);
}
