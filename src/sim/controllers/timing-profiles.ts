import fc from "fast-check";
import * as v from "valibot";
import { RECORDED_TIMING, type TimingProfile } from "./timing.ts";

/**
 * The legal range of each duration of a timing profile, ms (docs/simulator.md "Timing profiles"): what a real
 * cluster can produce, from the Kubernetes documentation and the recordings. The generated profiles of the
 * timing-invariance property (docs/alert-quality.md) are drawn from these ranges.
 */
export const TIMING_RANGES = {
  /** Controllers react to their informers within this. */
  reactMs: [10, 500],
  /** Pod start, image pull included (a cached image to a large pull). */
  startMs: [1_000, 60_000],
  /** Started → first successful readiness probe. */
  firstProbeMs: [200, 10_000],
  /** A ConfigMap or Secret a container waits for appears → the kubelet's next sync starts it. */
  configAppearedMs: [100, 15_000],
  /** The kubelet retries a configuration error or a failed mount. */
  configRetryMs: [5_000, 20_000],
  /** A crashing process runs before it exits. */
  crashRunMs: [200, 3_000],
  /** An init container runs before it exits. */
  initRunMs: [200, 5_000],
  /** `terminated` shown before the kubelet reports CrashLoopBackOff. */
  terminatedShownMs: [0, 1_500],
  /** A run-once pod runs before it exits. */
  jobRunMs: [500, 10_000],
  /** Readiness probe period when the probe sets none. */
  probePeriodMs: [1_000, 10_000],
  /** Graceful termination: SIGTERM → the container exited. */
  killMs: [100, 10_000],
  /** Containers exited → the kubelet's final DELETE. */
  finalDeleteMs: [50, 1_000],
  /** node-monitor-grace-period (v1.32 default 50 s; 20–60 s in managed clusters). */
  nodeMonitorGraceMs: [20_000, 60_000],
  /** A returned node's kubelet reports its pods Ready again. */
  nodeReturnReadyMs: [500, 10_000],
  /** The unreachable NoSchedule taint goes after the node is Ready again. */
  taintRemovalMs: [100, 2_000],
  /** The EndpointSlice controller's lag behind its pods (batching, queue). */
  endpointSliceLagMs: [0, 2_000],
  /** How late a kind's watch events reach a watcher, relative to other kinds. */
  watchDelayMs: [0, 500],
} as const satisfies Record<string, readonly [number, number]>;

/**
 * The kubelet's default back-off before restart n (10 s doubling to 5 min): a reduced back-off (KEP-4603) or
 * a node's `maxContainerRestartPeriod` (KEP-5593) only ever make it shorter, so every generated schedule stays
 * at or under this envelope.
 */
const DEFAULT_BACKOFF_MS = [10_000, 20_000, 40_000, 80_000, 160_000, 300_000] as const;

/** Kinds whose watch events a profile may delay (those mon's rules read together). */
export const DELAYED_KINDS = [
  "Pod",
  "Node",
  "EndpointSlice",
  "Event",
  "Deployment",
  "ReplicaSet",
  "StatefulSet",
  "DaemonSet",
  "Job",
  "PersistentVolumeClaim",
  "ConfigMap",
  "Secret",
  "Service",
] as const;

/**
 * A kubelet restart back-off schedule (the last entry repeats): `initial` repeated `repeat` times (a
 * front-loaded curve), then doubling from `initial × jump` up to `cap`, every entry at or under the default
 * curve. The recorded default is one of them (10 s, repeat 1, jump 2, cap 5 min); so is "2 s, 2 s, 2 s, then
 * every 15 s".
 */
function backOffSchedule(): fc.Arbitrary<readonly number[]> {
  return fc
    .record({
      initial: fc.integer({ min: 1_000, max: 10_000 }),
      repeat: fc.integer({ min: 1, max: 4 }),
      jump: fc.integer({ min: 2, max: 8 }),
      cap: fc.integer({ min: 1_000, max: 300_000 }),
    })
    .map(({ initial, repeat, jump, cap }) => {
      const top = Math.max(cap, initial);
      const out: number[] = Array.from({ length: repeat }, () => initial);
      for (let next = initial * jump; out.length < 8; next *= 2) {
        out.push(Math.min(next, top));
        if (next >= top) break;
      }
      return out.map((ms, i) => Math.min(ms, DEFAULT_BACKOFF_MS[Math.min(i, DEFAULT_BACKOFF_MS.length - 1)]!));
    });
}

const within = ([min, max]: readonly [number, number]) => fc.integer({ min, max });

/**
 * Every legal timing profile (TIMING_RANGES, back-off schedules under the default curve, a watch delay per
 * kind). fast-check biases its draws toward the ends of each range, where holds and waits meet.
 */
export function timingProfileArbitrary(): fc.Arbitrary<TimingProfile> {
  const r = TIMING_RANGES;
  return fc
    .record({
      reactMs: within(r.reactMs),
      startMs: within(r.startMs),
      firstProbeMs: within(r.firstProbeMs),
      configAppearedMs: within(r.configAppearedMs),
      configRetryMs: within(r.configRetryMs),
      crashRunMs: within(r.crashRunMs),
      initRunMs: within(r.initRunMs),
      terminatedShownMs: within(r.terminatedShownMs),
      crashBackOffMs: backOffSchedule(),
      pullBackOffMs: backOffSchedule(),
      jobRunMs: within(r.jobRunMs),
      jobBackOffMs: backOffSchedule(),
      probePeriodMs: within(r.probePeriodMs),
      killMs: within(r.killMs),
      finalDeleteMs: within(r.finalDeleteMs),
      nodeMonitorGraceMs: within(r.nodeMonitorGraceMs),
      nodeReturnReadyMs: within(r.nodeReturnReadyMs),
      taintRemovalMs: within(r.taintRemovalMs),
      noExecuteAfterMs: fc.integer({ min: 0, max: 5_000 }),
      endpointSliceLagMs: within(r.endpointSliceLagMs),
      watchDelayMs: fc.record(
        Object.fromEntries(DELAYED_KINDS.map((kind) => [kind, within(r.watchDelayMs)])) as Record<
          (typeof DELAYED_KINDS)[number],
          fc.Arbitrary<number>
        >,
      ),
    })
    .map(({ noExecuteAfterMs, ...p }) => ({ ...p, noExecuteRemovalMs: p.taintRemovalMs + noExecuteAfterMs }));
}

/** The profile a seed stands for: the first draw of `timingProfileArbitrary` with that seed (`mon sim --timing seed:N`). */
export function timingProfileFromSeed(seed: number): TimingProfile {
  const [profile] = fc.sample(timingProfileArbitrary(), { seed, numRuns: 1 });
  if (!profile) throw new Error(`no timing profile for seed ${seed}`);
  return profile;
}

const MS = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(3_600_000));
const SCHEDULE = v.pipe(v.array(MS), v.minLength(1), v.maxLength(32));
const PROFILE = v.strictObject({
  reactMs: v.optional(MS),
  startMs: v.optional(MS),
  firstProbeMs: v.optional(MS),
  configAppearedMs: v.optional(MS),
  configRetryMs: v.optional(MS),
  crashRunMs: v.optional(MS),
  initRunMs: v.optional(MS),
  terminatedShownMs: v.optional(MS),
  crashBackOffMs: v.optional(SCHEDULE),
  pullBackOffMs: v.optional(SCHEDULE),
  jobRunMs: v.optional(MS),
  jobBackOffMs: v.optional(SCHEDULE),
  probePeriodMs: v.optional(MS),
  killMs: v.optional(MS),
  finalDeleteMs: v.optional(MS),
  nodeMonitorGraceMs: v.optional(MS),
  nodeReturnReadyMs: v.optional(MS),
  taintRemovalMs: v.optional(MS),
  noExecuteRemovalMs: v.optional(MS),
  endpointSliceLagMs: v.optional(MS),
  watchDelayMs: v.optional(v.record(v.string(), MS)),
});

/**
 * A timing profile from `mon sim --timing`: `seed:N` (or a bare integer) draws one from the legal ranges; any
 * other value is a JSON file's text, `source` naming it, whose keys override the recorded timing (milliseconds;
 * back-offs as lists, the last entry repeating). Throws an Error with one line naming the key when a value is
 * not a whole number of milliseconds or a key is unknown.
 */
export function parseTimingProfile(value: string, readFile: (path: string) => string): TimingProfile {
  const seed = /^(?:seed:)?(-?\d+)$/.exec(value.trim());
  if (seed) return timingProfileFromSeed(Number(seed[1]));
  let text: string;
  try {
    text = readFile(value);
  } catch (error) {
    throw new Error(`--timing ${value}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`--timing ${value}: not JSON (${(error as Error).message})`);
  }
  // A timing example (`{ "story", "timing": { "controllers": { … } } }`, as a failing property run prints it):
  // take its controllers' part.
  const timing = json && typeof json === "object" && "timing" in json ? (json as { timing: unknown }).timing : json;
  const body =
    timing && typeof timing === "object" && "controllers" in timing
      ? (timing as { controllers: unknown }).controllers
      : timing;
  const parsed = v.safeParse(PROFILE, body);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const key = issue ? v.getDotPath(issue) : undefined;
    throw new Error(`--timing ${value}: ${key ? `key ${key}: ` : ""}${issue?.message ?? "not a timing profile"}`);
  }
  return { ...RECORDED_TIMING, ...parsed.output } as TimingProfile;
}
