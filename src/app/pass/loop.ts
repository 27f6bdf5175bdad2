import { servingServices } from "../../detect/network.ts";
import { createIncrementalFamilies } from "../../detect/families.ts";
import { ChangeMemory } from "../../incident/remembered.ts";
import { emptyLifecycle, type LifecycleState } from "../../incident/lifecycle.ts";
import type { PreparedRules } from "../../incident/suppress.ts";
import type { Inventory } from "../../kube/inventory.ts";
import type { UsageView } from "../../model/inventory.ts";
import type { Cancel, Clock } from "../../runtime/clock.ts";
import type { EvidenceReads } from "./evidence-reads.ts";
import type { Quarantine } from "../../detect/isolate.ts";
import { type PassResult, runPass } from "./pipeline.ts";

/** How long a pass waits after the first change of a batch, ms (ARCHITECTURE.md: at most every 250 ms). */
export const PASS_DELAY_MS = 250;
/** A pass that failed is tried again this soon even if the cluster stays quiet, ms. */
const RETRY_FAILED_PASS_MS = 30_000;
/**
 * The longest the loop goes without a pass, ms, like client-go's informer resync: what time alone changes in
 * a detector evaluated in full (a certificate entering its expiry window, a Lease no longer renewed) is seen
 * within it even in a cluster where nothing else happens.
 */
export const RESYNC_MS = 60_000;
/** How long the loop remembers that a Service served (page rule P1 (c)), ms. */
const SERVED_MEMORY_MS = 24 * 3_600_000;

/** The pass loop: batches changes into passes and wakes up for timers. */
export interface PassLoop {
  /** A change happened: a pass runs within the batch delay. */
  schedule(): void;
  /** Runs a pass now (tests and the demo use it to avoid waiting for the batch delay). */
  passNow(): void;
  /** The lifecycle state after the last pass (open incidents for /status). */
  state(): LifecycleState;
  stop(): void;
}

/**
 * Creates the pass loop (ARCHITECTURE.md "The pass"): changes are batched into one pass at most every
 * `delayMs`; a pass runs only once `ready()` (required caches synced); each pass's result goes to `onResult`
 * and its decision lag (first change of the batch → decisions applied, seconds) to `onLag`. It keeps what the
 * pure core needs between passes: the lifecycle state, the startup baseline (the first pass that ran every
 * detector), and which Services served in the last day. It wakes up for the earliest time a finding, the
 * digest or a reminder asked for, a detector's result changes with time alone (the incremental families' time
 * edges), or `nextWakeAt()` (overflow digests), and at least every RESYNC_MS; a failed pass is retried within 30 s.
 * After each pass it requests what the findings that wait need read (logs, Leases).
 */
export function createPassLoop(options: {
  clock: Clock;
  inventory: Inventory;
  cluster: string;
  /** The rules of the current edition (they change when the license does). */
  rules: PreparedRules | (() => PreparedRules);
  evidence: EvidenceReads;
  ready: () => boolean;
  /** Usage, probes and control-plane readings of the latest rounds. */
  usage: () => Omit<UsageView, "served">;
  onResult: (result: PassResult, now: number) => void;
  onLag: (seconds: number) => void;
  nextWakeAt: () => number | undefined;
  delayMs?: number;
  /** The lifecycle state to continue from (the previous leader's, from the state file); empty otherwise. */
  initial?: LifecycleState;
  /**
   * It continues a loop of this process that already ran its baseline (a configuration change, this replica's
   * next term after a lost Lease, issue 53): nothing restarted, so what begins meanwhile is told as news, not
   * summed up.
   */
  baselined?: boolean;
  /**
   * When this work began with the caches already warm (a standby taking over): the objects with a finding when
   * they first synced; its baseline pass sums up only their failures (model/baseline.ts).
   */
  failingAtSync?: ReadonlySet<string>;
  /** Each pass's resulting lifecycle state, to be kept (Pro state file). */
  onState?: (state: LifecycleState) => void;
  /** Trace what each pass did with each object (`mon explain`: on with the diagnostics endpoints). */
  explain?: boolean;
}): PassLoop {
  const { clock, inventory } = options;
  let lifecycle: LifecycleState = options.initial ?? emptyLifecycle();
  // The first pass is the baseline (spec 1.7): what is open and not already known is told in one summary.
  let baselined = options.baselined ?? false;
  // What failed in this loop's baseline pass: there when mon started, with an unknown onset (issue 52 item 1).
  let failingAtStart: ReadonlySet<string> | undefined;
  let scheduled: Cancel | undefined;
  let wake: Cancel | undefined;
  let firstDirtyAt: number | undefined;
  let stopped = false;
  const served = new Map<string, number>();
  // Objects a detector threw on, set aside until they change (detect/isolate.ts).
  const quarantine: Quarantine = new Map();
  // The pod, config-reference and workload families re-evaluate only the objects a change or the time
  // concerns (detect/incremental.ts); the others are cheap per pass or read only what they need.
  const families = createIncrementalFamilies();
  // The ConfigMaps and Secrets deleted lately: "what changed" names a deletion before an incident (issue 32).
  const deletions = new ChangeMemory();
  const unsubscribe = inventory.subscribe((change) => {
    families.noteChange(change);
    deletions.note(change, clock.now());
  });
  const detectors = families.detectors;
  // What a stage set aside and was already said (issue 41, item 6): logged, counted and told once while it lasts.
  const setAsideTold = new Set<string>();
  let servedSince: number | undefined;

  const rulesNow = () => (typeof options.rules === "function" ? options.rules() : options.rules);
  const pass = () => {
    scheduled = undefined;
    if (stopped || !options.ready()) return;
    const now = clock.now();
    servedSince ??= now;
    for (const key of servingServices(inventory)) served.set(key, now);
    for (const [key, at] of served) if (now - at > SERVED_MEMORY_MS) served.delete(key);
    const usage: UsageView = { ...options.usage(), served: { at: served, since: servedSince } };
    const passed = runPass(inventory, lifecycle, now, options.cluster, usage, options.evidence, rulesNow(), {
      baseline: !baselined,
      ...(!baselined && options.failingAtSync ? { failingAtSync: options.failingAtSync } : {}),
      ...(failingAtStart ? { failingAtStart } : {}),
      quarantine,
      detectors,
      deletions,
      ...(options.explain ? { explain: true } : {}),
    });
    const result = onceSetAside(passed, setAsideTold);
    if (result.failedDetectors.length === 0 && !result.panicked) {
      if (!baselined) failingAtStart = result.failingAtStart;
      baselined = true;
    }
    lifecycle = result.state;
    options.onResult(result, now);
    options.onState?.(lifecycle);
    options.evidence.request(result.awaitingEvidence);
    if (firstDirtyAt !== undefined) options.onLag(Math.max(0, now - firstDirtyAt) / 1000);
    firstDirtyAt = undefined;
    wake?.();
    // What time alone changes (a hold ending, an OOM kill forgotten, a deletion turning stuck) is seen on
    // time, also in a cluster where nothing else happens.
    const wakeAt = result.panicked
      ? now + RETRY_FAILED_PASS_MS
      : Math.min(
          now + RESYNC_MS,
          earliest(earliest(result.nextCheckAt, families.nextEdge(now)), options.nextWakeAt()) ??
            Number.POSITIVE_INFINITY,
        );
    wake = wakeAt !== undefined ? clock.setTimer(schedule, Math.max(wakeAt, now) - now) : undefined;
  };
  const schedule = () => {
    firstDirtyAt ??= clock.now();
    if (!scheduled && !stopped) scheduled = clock.setTimer(pass, options.delayMs ?? PASS_DELAY_MS);
  };

  return {
    schedule,
    passNow() {
      scheduled?.();
      pass();
    },
    state: () => lifecycle,
    stop() {
      stopped = true;
      unsubscribe();
      scheduled?.();
      wake?.();
    },
  };
}

// --- internal ---

/**
 * The pass's result with only what is newly set aside (`told` remembers what was, and forgets what no stage
 * throws on any more, so a later failure is said again): its plain notices go out once, not every pass.
 */
function onceSetAside(result: PassResult, told: Set<string>): PassResult {
  const all = result.setAside ?? [];
  if (all.length === 0 && told.size === 0) return result;
  const now = new Set(all.map((a) => `set-aside:${a.stage}:${a.id}`));
  const fresh = all.filter((a) => !told.has(`set-aside:${a.stage}:${a.id}`));
  for (const key of told) if (!now.has(key)) told.delete(key);
  for (const key of now) told.add(key);
  const freshKeys = new Set(fresh.map((a) => `set-aside:${a.stage}:${a.id}`));
  return {
    ...result,
    setAside: fresh,
    messages: result.messages.filter(
      (m) => !m.message.incidentId.startsWith("set-aside:") || freshKeys.has(m.message.incidentId),
    ),
  };
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  return a !== undefined && b !== undefined ? Math.min(a, b) : (a ?? b);
}
