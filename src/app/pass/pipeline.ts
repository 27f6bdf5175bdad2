import { correlate } from "../../correlate/correlate.ts";
import { presentAtStart } from "../../model/baseline.ts";
import { defer } from "../../correlate/defer.ts";
import { unexplainedEvents } from "../../detect/events.ts";
import { nextStepsOf } from "../../detect/next-steps.ts";
import { impactFinder } from "../../detect/impact.ts";
import { detect } from "../../detect/run.ts";
import { annotate } from "../../incident/annotate.ts";
import { causesGone } from "../../incident/cause-gone.ts";
import { explain } from "../../incident/explain.ts";
import { hold } from "../../incident/hold.ts";
import { type LifecycleState, openCount } from "../../incident/lifecycle.ts";
import { proHintFor } from "../../incident/pro-hint.ts";
import { rate } from "../../detect/rate.ts";
import { recoveryLine } from "../../incident/recovery.ts";
import { step } from "../../incident/step.ts";
import { type PreparedRules, suppressionsOf, suppressionText } from "../../incident/suppress.ts";
import { nextWakeAt } from "../../incident/wake.ts";
import type { Finding } from "../../model/finding.ts";
import type { InventoryView, UsageView } from "../../model/inventory.ts";
import type { Decision } from "../../model/decision.ts";
import type { Incident, IncidentDraft } from "../../model/incident.ts";
import { refKey } from "../../model/object-ref.ts";
import { compose } from "../../notify/compose.ts";
import { renderSetAsideNotice } from "../../notify/notice.ts";
import { plainDecision } from "../../notify/plain.ts";
import { isolating, type PassStage, type SetAside } from "./guard.ts";
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
    const atStart = { baseline, ...(options.failingAtSync ? { failingAtSync: options.failingAtSync } : {}) };
    const detected = detect({ inventory, now, usage, quarantine, ...(detectors ? { detectors } : {}) });
    // What fails in the baseline pass, due or held, was failing when mon started (issue 52 item 1).
    const failingAtStart = baseline
      ? new Set(detected.findings.filter((f) => presentAtStart([f.object], atStart)).map((f) => refKey(f.object)))
      : options.failingAtStart;
    const quarantined = { quarantined: detected.quarantined, quarantinedTotal: quarantine.size };
    if (detected.failedDetectors.length > 0)
      return { ...nothingDecided(state, detected.findings.length, detected.failedDetectors), ...quarantined };
    const logs = evidence;
    // After detection every stage isolates what it throws on (issue 41, item 6): an incident (or a finding,
    // before correlation) a stage throws on is set aside, the others go on; an open incident set aside keeps
    // its state, a new one is told once in a plain notice, a decision compose throws on in its plain form.
    const setAside: SetAside[] = [];
    const guard = <T, R>(
      stage: PassStage,
      items: readonly T[],
      idOf: (t: T) => string,
      run: (items: readonly T[]) => R,
    ) => isolating(stage, items, idOf, run, setAside, options.fault);
    const rated = guard("rate", detected.findings, keyOf, (fs) =>
      rate(fs, { inventory, now, ...(rules?.severity ? { severity: rules.severity } : {}) }),
    );
    const deferred = guard("defer", rated.findings, keyOf, (fs) => {
      // Failures whose cause is gone are judged from its resolve (issue 52 item 6); the keys present this pass
      // are gathered only when an open incident that folded others in asks about its cause.
      let present: Set<string> | undefined;
      const gone = causesGone(state, (key) => (present ??= new Set(fs.map(keyOf))).has(key), now);
      return defer(fs, {
        inventory,
        now,
        incidents: state.incidents,
        ...atStart,
        gone,
        ...(logs ? { evidence: logs } : {}),
      });
    });
    // Each finding's suppression, decided once this pass for correlate and hold alike.
    const suppression = rules ? suppressionsOf(inventory, rules, now) : undefined;
    const drafts = guard("correlate", deferred.due, keyOf, (fs) =>
      correlate(fs, {
        inventory,
        incidents: state.incidents,
        waits: deferred.waits,
        ...(failingAtStart ? { failingAtStart } : {}),
        ...(suppression ? { suppressed: (f: Finding) => suppression(f) !== undefined } : {}),
      }),
    );
    const held = guard("hold", drafts, rootOf, (ds) =>
      hold(ds, { inventory, now, state, ...(rules && suppression ? { rules, suppression } : {}) }),
    );
    const stepped = guard("step", held.drafts, rootOf, (ds) =>
      step(
        { ...held, drafts: [...ds, ...standIns(ds, state, setAside)] },
        { inventory, state, now, cluster, ...atStart },
      ),
    );
    const impact = impactFinder(inventory);
    const annotated = (ds: readonly Decision[]) =>
      annotate(
        { ...stepped.step, decisions: [...ds] },
        { inventory, impact, ...(options.deletions ? { deletions: options.deletions } : {}) },
      ).decisions;
    // An incident annotate throws on is told without what annotate adds (owner, what changed, who is hurt).
    const decisions = guard("annotate", stepped.step.decisions, incidentOf, annotated);
    const unannotated = new Set(setAside.filter((a) => a.stage === "annotate").map((a) => a.id));
    let next = 0;
    const told = {
      ...stepped.step,
      decisions: stepped.step.decisions.map((d) => (unannotated.has(d.incident.id) ? d : decisions[next++]!)),
    };
    stage = "compose";
    const proHints = rules?.proHints;
    const composeCtx = {
      cluster,
      now,
      ipOwner: (ip: string) => inventory.ownerOfIp(ip),
      recoveryLine: (incident: Incident) => recoveryLine(stepped.recovery(incident)),
      nextSteps: (incident: Incident) => nextStepsOf(incident, rules?.runbooks),
      ...(proHints ? { proHint: (incident: Incident) => proHintFor(incident, inventory, proHints, now) } : {}),
    };
    const composedDecisions = guard("compose", told.decisions, incidentOf, (ds) =>
      compose({ decisions: ds, closedRollUps: [] }, composeCtx),
    );
    const rest = compose(
      { decisions: [], closedRollUps: told.closedRollUps, ...(told.digest ? { digest: told.digest } : {}) },
      composeCtx,
    );
    const plain = [
      ...told.decisions
        .filter((d) => setAside.some((a) => a.stage === "compose" && a.id === d.incident.id))
        .map((d) => {
          const why = setAside.find((a) => a.stage === "compose" && a.id === d.incident.id)!;
          return { message: plainDecision(d, cluster, why.stage, why.error) };
        }),
      ...setAside
        .filter(
          (a) => a.stage !== "compose" && a.stage !== "annotate" && !state.incidents.has(a.id) && !inOpen(a.id, state),
        )
        .map((a) => ({ message: renderSetAsideNotice(cluster, a, now), setAside: a })),
    ];
    const composed = {
      messages: [...composedDecisions.messages, ...plain.map(({ message }) => ({ message })), ...rest.messages],
      redacted: composedDecisions.redacted + rest.redacted,
      omitted: composedDecisions.omitted + rest.omitted,
    };
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
      ...quarantined,
      decisions: told.decisions,
      skipped: told.skipped,
      messages: composed.messages,
      state: told.state,
      open: openCount(told.state),
      findings: deferred.due.filter((f) => !deferred.waits(f)).length,
      redacted: composed.redacted,
      omitted: composed.omitted,
      failedDetectors: [],
      unexplainedEvents: unexplainedEvents(inventory, now),
      awaitingEvidence: deferred.awaitingEvidence,
      waitingSymptoms: deferred.waitingSymptoms,
      inGrace: rated.inGrace,
      setAside,
      ...(nextCheckAt !== undefined ? { nextCheckAt } : {}),
      ...(traces ? { traces } : {}),
      ...(baseline && failingAtStart ? { failingAtStart } : {}),
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ...nothingDecided(state, 0, []), panicked: { stage, error: message } };
  }
}

// --- internal ---

const keyOf = (f: Finding): string => f.key;
const rootOf = (d: IncidentDraft): string => refKey(d.root);
const incidentOf = (d: Decision): string => d.incident.id;

/** True when `id` (a finding's key) is a finding of an open incident. */
function inOpen(id: string, state: LifecycleState): boolean {
  for (const incident of state.incidents.values()) if (incident.findings.some((f) => f.key === id)) return true;
  return false;
}

/**
 * Drafts that keep open incidents a stage set aside as they were (issue 41, item 6): an incident whose root or
 * one of whose findings was set aside, with no draft of its own this pass, is carried with its previous root
 * and findings — nothing new, so nothing is decided and nothing resolves on missing evidence.
 */
function standIns(
  drafts: readonly IncidentDraft[],
  state: LifecycleState,
  setAside: readonly SetAside[],
): IncidentDraft[] {
  if (setAside.length === 0) return [];
  const ids = new Set(setAside.map((a) => a.id));
  const present = new Set(drafts.map(rootOf));
  const out: IncidentDraft[] = [];
  for (const incident of state.incidents.values()) {
    if (present.has(incident.id)) continue;
    if (ids.has(incident.id) || incident.findings.some((f) => ids.has(f.key)))
      out.push({ root: incident.root, rootReason: incident.rootReason, findings: incident.findings });
  }
  return out;
}
