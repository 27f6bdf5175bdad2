import type { Simulator } from "./simulator.ts";
import type { KubeObject } from "./store.ts";
import type { Timeline } from "./timeline.ts";

/** What the replay needs of a clock: the time and a timer (the fake clock in tests, the wall clock in `mon sim`). */
export interface ReplayClock {
  now(): number;
  setTimer(fn: () => void, delayMs: number): () => void;
}

/** A running replay. */
export interface Replay {
  /** Epoch ms on the replay clock that t=0 of the recording maps to. */
  readonly zeroMs: number;
  /** Resolves once the last event was served. */
  readonly done: Promise<void>;
  /** Recorded seconds (t) of the events served so far. */
  served(): number;
  stop(): void;
}

/**
 * Replays a recorded timeline through the simulator's normal list and watch (spec: real timing in the tests):
 * the initial objects are written at once, then each watch event at `zeroMs + t / speed`, so informers see
 * what they saw on the real control plane, in the same order and with the same gaps. Every timestamp in the
 * objects is moved by the same offset (recording time → replay clock), so ages and holds measured from
 * them are what they were. Objects keep their uids, so owner references hold.
 */
export function replayTimeline(
  sim: Pick<Simulator, "store" | "registry">,
  timeline: Timeline,
  clock: ReplayClock,
  options: {
    speed?: number;
    /** Where the recording's containers' output goes, at its second (the simulator's `setLogs`). */
    setLogs?: (namespace: string, pod: string, container: string, text: string, previous: boolean) => void;
  } = {},
): Replay {
  const speed = options.speed ?? 1;
  // A whole number of seconds, so second-precision timestamps keep their exact distance to the events.
  const offsetMs = Math.round((clock.now() - timeline.startMs) / 1000) * 1000;
  const zeroMs = timeline.startMs + offsetMs;
  const startedAt = clock.now();
  const write = (type: "ADDED" | "MODIFIED" | "DELETED", object: KubeObject) => {
    const resource = sim.registry.findByKind(String(object.apiVersion), String(object.kind));
    if (!resource) return;
    sim.store.replay(resource, type, shiftTimes(object, offsetMs));
  };
  // Namespaces first, so namespaced objects find theirs.
  const initial = [...timeline.initial].sort((a, b) => Number(b.kind === "Namespace") - Number(a.kind === "Namespace"));
  for (const object of initial) write("ADDED", object);

  let served = 0;
  const timers: (() => void)[] = [];
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  if (timeline.events.length === 0) finish();
  let remaining = timeline.events.length;
  for (const event of timeline.events) {
    const at = Math.max(0, zeroMs - startedAt + (event.t * 1000) / speed);
    timers.push(
      clock.setTimer(() => {
        write(event.type, event.object);
        served = Math.max(served, event.t);
        if (--remaining === 0) finish();
      }, at),
    );
  }
  // What a container printed is its current log as it ends, its previous one once the next instance runs: both.
  for (const log of timeline.logs ?? [])
    timers.push(
      clock.setTimer(
        () => {
          options.setLogs?.(log.namespace, log.pod, log.container, log.text, false);
          options.setLogs?.(log.namespace, log.pod, log.container, log.text, true);
        },
        Math.max(0, zeroMs - startedAt + (log.t * 1000) / speed),
      ),
    );
  return {
    zeroMs,
    done,
    served: () => served,
    stop() {
      for (const cancel of timers) cancel();
      finish();
    },
  };
}

// --- internal ---

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** The object with every RFC 3339 timestamp moved by `offsetMs`, keeping second precision where it had it. */
function shiftTimes(value: KubeObject, offsetMs: number): KubeObject {
  if (offsetMs === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string" && RFC3339.test(v)) {
      const moved = new Date(Date.parse(v) + offsetMs).toISOString();
      return v.includes(".") ? moved : moved.replace(/\.\d{3}Z$/, "Z");
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as KubeObject;
}
