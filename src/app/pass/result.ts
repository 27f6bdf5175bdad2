import type { Quarantine, Quarantined } from "../../detect/isolate.ts";
import type { Detector } from "../../detect/isolate.ts";
import type { RememberedChanges } from "../../incident/changes.ts";
import type { LifecycleState } from "../../incident/lifecycle.ts";
import { openCount } from "../../incident/lifecycle.ts";
import type { Decision, Skip } from "../../model/decision.ts";
import type { Finding } from "../../model/finding.ts";
import type { Message } from "../../model/message.ts";
import type { TraceEntry } from "../../model/trace.ts";
import type { PassStage, SetAside } from "./guard.ts";

/** What one pass produced. `nextCheckAt` is the earliest time (epoch ms) a finding asked to be looked at again. */
export interface PassResult {
  readonly decisions: readonly Decision[];
  /** Decisions that send nothing (spec 6 audit `skipped`). */
  readonly skipped: readonly Skip[];
  readonly messages: readonly { message: Message; openedResolved?: Message }[];
  readonly state: LifecycleState;
  readonly open: number;
  readonly findings: number;
  readonly redacted: number;
  /** Detail sections left out of this pass's messages by their bounds (mon_rendered_details_omitted_total). */
  readonly omitted: number;
  readonly nextCheckAt?: number;
  /** Detector families that threw; their findings are missing from this pass. */
  readonly failedDetectors: readonly string[];
  /** Objects a detector threw on, newly set aside this pass (detect/isolate.ts); the rest of the pass went on. */
  readonly quarantined: readonly Quarantined[];
  /** Objects set aside in all, this pass included. */
  readonly quarantinedTotal: number;
  /**
   * The stage that threw (spec 4.2 `mon_panics_recovered_total{stage}`): `incident` (correlation and
   * lifecycle) or `compose` (rendering). The pass then decides nothing and keeps the previous state, so the
   * next pass tries again; `error` says what failed.
   */
  readonly panicked?: { readonly stage: "incident" | "compose"; readonly error: string };
  /**
   * What a stage after detection threw on and set aside this pass (issue 41, item 6): the others went on. The
   * daemon counts and logs each once (`mon_panics_recovered_total{stage}`).
   */
  readonly setAside?: readonly SetAside[];
  /** UIDs of recent Warning events no rule explains (the daemon counts each once). */
  readonly unexplainedEvents: readonly string[];
  /** Symptom findings (a Service, a workload) waiting for the findings of the pods behind them. */
  readonly waitingSymptoms: number;
  /** Findings held by young-node grace (spec 1.8), and the latest time (epoch ms) one of them opens. */
  readonly inGrace: { readonly count: number; readonly until: number };
  /**
   * New findings deferred until their container's log is read, and crash loops in their hold a group wait reads
   * (correlate/defer.ts): the pass loop requests those reads after the pass.
   */
  readonly awaitingEvidence: readonly Finding[];
  /** On a baseline pass: the objects with a finding, due or held (PassOptions.failingAtStart of the passes after). */
  readonly failingAtStart?: ReadonlySet<string>;
  /** What this pass did with each object, by `Kind/namespace/name` (incident/explain.ts), when asked (`explain`). */
  readonly traces?: ReadonlyMap<string, readonly TraceEntry[]>;
}

/** Evidence gathered outside the cluster objects, as the pass sees it (the daemon's log collector). */
export interface PassEvidence {
  /** The finding with what was read for it (its container's last log lines, its node's Lease), or why not. */
  attach(finding: Finding): Finding;
  /** True while a new finding waits for what is read for it (deferred like a hold, for at most a few seconds). */
  pending(finding: Finding): boolean;
}

/**
 * Options of one pass: `baseline` marks the first after startup; `quarantine` is the pass loop's set of
 * objects detectors threw on; `detectors` replaces families by name with their incremental forms (the pass
 * loop's `pods`, `config` and `workloads`, detect/families.ts), whose results equal the full families'.
 */
export interface PassOptions {
  readonly baseline?: boolean;
  /**
   * When this work began with the caches already warm (a standby taking over): the objects with a finding when
   * they first synced; on the baseline pass only their failures are summed up (model/baseline.ts).
   */
  readonly failingAtSync?: ReadonlySet<string>;
  /**
   * The objects (`Kind/namespace/name`) with a finding, due or held, in this loop's baseline pass: what failed
   * there was already failing when mon began to watch, with an unknown onset, whichever later pass first tells it
   * (issue 52 item 1). The baseline pass returns it (`PassResult.failingAtStart`).
   */
  readonly failingAtStart?: ReadonlySet<string>;
  /** ConfigMaps and Secrets deleted recently (the pass loop's memory), for what changed before an incident. */
  readonly deletions?: RememberedChanges;
  /** Trace what the pass did with each object (`mon explain`; on while the diagnostics endpoints are). */
  readonly explain?: boolean;
  readonly quarantine?: Quarantine;
  readonly detectors?: Readonly<Partial<Record<string, Detector>>>;
  /**
   * Called before a stage looks at each incident or finding (`stage`, its id): throwing from it makes that
   * stage fail on it. Tests use it to prove the isolation of every stage (issue 41, item 6).
   */
  readonly fault?: (stage: PassStage, id: string) => void;
}

/** A pass that decided nothing: the previous state stands, so the next pass tries again. */
export function nothingDecided(
  state: LifecycleState,
  findings: number,
  failedDetectors: readonly string[],
): PassResult {
  return {
    decisions: [],
    skipped: [],
    messages: [],
    state,
    open: openCount(state),
    findings,
    redacted: 0,
    omitted: 0,
    failedDetectors,
    quarantined: [],
    quarantinedTotal: 0,
    unexplainedEvents: [],
    awaitingEvidence: [],
    waitingSymptoms: 0,
    inGrace: { count: 0, until: 0 },
  };
}
