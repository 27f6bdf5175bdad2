import { correlate } from "../../correlate/correlate.ts";
import { defer } from "../../correlate/defer.ts";
import { unexplainedEvents } from "../../detect/events.ts";
import { withLog } from "../../detect/evidence.ts";
import { nextStepsOf } from "../../detect/next-steps.ts";
import { impactFinder } from "../../detect/impact.ts";
import { detect } from "../../detect/run.ts";
import { annotate } from "../../incident/annotate.ts";
import { explain } from "../../incident/explain.ts";
import { hold } from "../../incident/hold.ts";
import { type LifecycleState, openCount } from "../../incident/lifecycle.ts";
import { proHintFor } from "../../incident/pro-hint.ts";
import { rate } from "../../detect/rate.ts";
import { recoveryLine } from "../../incident/recovery.ts";
import { step } from "../../incident/step.ts";
import { type PreparedRules, suppressionText } from "../../incident/suppress.ts";
import { nextWakeAt } from "../../incident/wake.ts";
import type { Finding } from "../../model/finding.ts";
import type { InventoryView, UsageView } from "../../model/inventory.ts";
import { compose } from "../../notify/compose.ts";
import { nothingDecided, type PassEvidence, type PassOptions, type PassResult } from "./result.ts";

export type { PassEvidence, PassOptions, PassResult } from "./result.ts";

/**
 * One pass of the pure core (ARCHITECTURE.md "The pass"), as a declared list of stages, each `(input, ctx) →
 * output` in the folder of its layer: detect → rate → defer → correlate → hold → step → annotate → compose.
 * No I/O, no clock: `now` is epoch ms. A detector family that throws is named in `failedDetectors` and the
 * pass decides nothing, so its open incidents are kept rather than resolved on missing evidence. A later stage
 * that throws is the panic guard's: nothing is decided, the state stands, `panicked` names the stage.
 * `options.baseline` marks the first pass after startup (spec 1.7): what is open is told in one startup summary.
 */
export function runPass(
  inventory: InventoryView,
  state: LifecycleState,
  now: number,
  cluster: string,
  usage: UsageView = {},
  evidence?: PassEvidence,
  rules?: PreparedRules,
  options: PassOptions = {},
): PassResult {
  const quarantine = options.quarantine ?? new Map();
  let stage: "incident" | "compose" = "incident";
  try {
    const { detectors, baseline = false } = options;
    const detected = detect({ inventory, now, usage, quarantine, ...(detectors ? { detectors } : {}) });
    const setAside = { quarantined: detected.quarantined, quarantinedTotal: quarantine.size };
    if (detected.failedDetectors.length > 0)
      return { ...nothingDecided(state, detected.findings.length, detected.failedDetectors), ...setAside };
    const logs = evidence && {
      pending: (f: Finding) => evidence.pending(f),
      attach: (f: Finding) => withLog(f, evidence.lines(f)),
    };
    const rated = rate(detected.findings, { inventory, now, ...(rules?.severity ? { severity: rules.severity } : {}) });
    const deferred = defer(rated.findings, {
      inventory,
      now,
      incidents: state.incidents,
      baseline,
      ...(logs ? { evidence: logs } : {}),
    });
    const drafts = correlate(deferred.due, { inventory, incidents: state.incidents, waits: deferred.waits });
    const held = hold(drafts, { inventory, now, state, ...(rules ? { rules } : {}) });
    const stepped = step(held, { inventory, state, now, cluster, baseline });
    const told = annotate(stepped.step, {
      inventory,
      impact: impactFinder(inventory),
      ...(options.deletions ? { deletions: options.deletions } : {}),
    });
    stage = "compose";
    const proHints = rules?.proHints;
    const composed = compose(told, {
      cluster,
      now,
      ipOwner: (ip) => inventory.ownerOfIp(ip),
      recoveryLine: (incident) => recoveryLine(stepped.recovery(incident)),
      nextSteps: (incident) => nextStepsOf(incident, rules?.runbooks),
      ...(proHints ? { proHint: (incident) => proHintFor(incident, inventory, proHints, now) } : {}),
    });
    const nextCheckAt = nextWakeAt(deferred.findings, told.state, now);
    const traces = options.explain
      ? explain({
          ...{ now, detected: detected.findings, rated: rated.findings, waited: deferred.findings },
          ...{ awaitingEvidence: deferred.awaitingEvidence, drafts: held.drafts },
          ...{ decisions: told.decisions, skipped: told.skipped },
          suppression: (f) => (rules ? suppressionText(f, inventory, rules, now) : undefined),
        })
      : undefined;
    return {
      ...setAside,
      decisions: told.decisions,
      skipped: told.skipped,
      messages: composed.messages,
      state: told.state,
      open: openCount(told.state),
      findings: deferred.due.length - deferred.awaitingEvidence.length,
      redacted: composed.redacted,
      omitted: composed.omitted,
      failedDetectors: [],
      unexplainedEvents: unexplainedEvents(inventory, now),
      awaitingEvidence: deferred.awaitingEvidence,
      waitingSymptoms: deferred.waitingSymptoms,
      inGrace: rated.inGrace,
      ...(nextCheckAt !== undefined ? { nextCheckAt } : {}),
      ...(traces ? { traces } : {}),
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ...nothingDecided(state, 0, []), panicked: { stage, error: message } };
  }
}
