import { groupFindings } from "../correlate/group.ts";
import { foldNamespaceOutages } from "../correlate/namespace-outage.ts";
import { waitForCauses } from "../correlate/wait-for-cause.ts";
import { detectNodes } from "../detect/nodes.ts";
import { detectPods } from "../detect/pods.ts";
import { detectWorkloads } from "../detect/workloads.ts";
import { detectCertificates } from "../detect/certificates.ts";
import { nextReminderAt, openCount, stepLifecycle, type LifecycleState } from "../incident/lifecycle.ts";
import { suppressionOf, type PreparedRules } from "../incident/suppress.ts";
import { opensAtWithGrace } from "../incident/grace.ts";
import { ackOf } from "../incident/ack.ts";
import { overrideSeverity } from "../incident/overrides.ts";
import { ownerOf } from "../incident/owner.ts";
import { redact } from "../redact/redact.ts";
import { cutStart } from "../redact/cut.ts";
import { EVIDENCE_MAX } from "../detect/evidence.ts";
import type { Decision, Skip } from "../model/decision.ts";
import type { Finding } from "../model/finding.ts";
import type { InventoryView, UsageView } from "../model/inventory.ts";
import { detectStorage } from "../detect/storage.ts";
import { detectConfigRefs } from "../detect/config-refs.ts";
import { detectProbes } from "../detect/probes.ts";
import { detectEvents, unexplainedEvents } from "../detect/events.ts";
import { detectNetwork } from "../detect/network.ts";
import { detectControlPlane } from "../detect/control-plane.ts";
import { detectNetworkPolicies } from "../detect/network-policy.ts";
import type { Message } from "../model/message.ts";
import { proHintFor } from "./pro-hint.ts";
import type { Incident, IncidentDraft } from "../model/incident.ts";
import { type ObjectRef, refKey } from "../model/object-ref.ts";
import { nextStepsFor } from "../detect/next-steps.ts";
import { type Detector, detectIsolated, type Quarantine, type Quarantined } from "./isolate.ts";
import { absorbRecoveryTraffic, RECOVERY_WAIT_MS, type Recovery, recoveryOf } from "../incident/recovery.ts";
import { renderDecision } from "../notify/render.ts";
import { renderDigest, renderRollUpClosed, renderSummary } from "../notify/summary.ts";

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
  /** Objects a detector threw on, newly set aside this pass (app/isolate.ts); the rest of the pass went on. */
  readonly quarantined: readonly Quarantined[];
  /** Objects set aside in all, this pass included. */
  readonly quarantinedTotal: number;
  /**
   * The stage that threw (spec 4.2 `mon_panics_recovered_total{stage}`): `incident` (correlation and
   * lifecycle) or `compose` (rendering). The pass then decides nothing and keeps the previous state, so the
   * next pass tries again; `error` says what failed.
   */
  readonly panicked?: { readonly stage: "incident" | "compose"; readonly error: string };
  /** UIDs of recent Warning events no rule explains (the daemon counts each once). */
  readonly unexplainedEvents: readonly string[];
  /** Symptom findings (a Service, a workload) waiting for the findings of the pods behind them. */
  readonly waitingSymptoms: number;
  /** Findings held by young-node grace (spec 1.8), and the latest time (epoch ms) one of them opens. */
  readonly inGrace: { readonly count: number; readonly until: number };
  /** New findings deferred until their container's log is read: the pass loop requests those reads after the pass. */
  readonly awaitingEvidence: readonly Finding[];
}

/** The kind at the top of a finding's owner chain (a Pod's Deployment), or the object's own kind. */
function ownerKindOf(f: Finding, inventory: InventoryView): string {
  const found = inventory.get(f.object.kind, f.object.namespace, f.object.name);
  const top = found ? inventory.ownerChain(found).at(-1) : undefined;
  return top ? String(top.kind) : f.object.kind;
}

/** Adds the last log lines to a finding's evidence (spec 1.6), once. */
function withLog(f: Finding, lines: readonly string[] | undefined): Finding {
  if (!lines || lines.length === 0) return f;
  // The error line is the last: a cut keeps the end.
  return { ...f, evidence: [...f.evidence, { label: "log", value: cutStart(lines.join(" ⏎ "), EVIDENCE_MAX) }] };
}

const DETECTORS: readonly [string, (inventory: InventoryView, now: number, usage: UsageView) => Finding[]][] = [
  ["nodes", detectNodes],
  ["pods", detectPods],
  ["workloads", detectWorkloads],
  ["storage", detectStorage],
  ["config", detectConfigRefs],
  ["certificates", detectCertificates],
  ["events", detectEvents],
  ["network", detectNetwork],
  ["controlPlane", detectControlPlane],
  ["probes", detectProbes],
  ["networkPolicies", detectNetworkPolicies],
];

/** Evidence gathered outside the cluster objects, as the pass sees it (the daemon's log collector). */
export interface PassEvidence {
  /** Last log lines of a finding's container, when read. */
  lines(finding: Finding): readonly string[] | undefined;
  /** True while a new finding waits for its log (deferred like a hold, for at most a few seconds). */
  pending(finding: Finding): boolean;
}

/**
 * One pass of the pure core (ARCHITECTURE.md "The pass"): detect → correlate → lifecycle → render. No I/O,
 * no clock: `now` is epoch ms. A detector that throws is skipped for this pass and named in
 * `failedDetectors`; its open incidents are kept as they were rather than resolved on missing evidence.
 * `rules` (built once by `prepareRules`) decide scope, silences, maintenance and the Pro behaviours.
 * `options.baseline` marks the first pass after startup (spec 1.7): what is open then is told in one startup
 * summary (page-tier incidents also go, on their own, to paging tools and trackers), and new findings do not
 * wait for their log.
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
  const stage = { current: "incident" as "incident" | "compose" };
  try {
    return decide(inventory, state, now, cluster, usage, evidence, rules, options, stage);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ...nothingDecided(state, 0, []), panicked: { stage: stage.current, error: message } };
  }
}

/**
 * Options of one pass: `baseline` marks the first after startup; `quarantine` is the pass loop's set of
 * objects detectors threw on; `detectors` replaces families by name with their incremental forms (the pass
 * loop's `pods`, `config` and `workloads`, detect/families.ts), whose results equal the full families'.
 */
export interface PassOptions {
  readonly baseline?: boolean;
  readonly quarantine?: Quarantine;
  readonly detectors?: Readonly<Partial<Record<string, Detector>>>;
}

/** A pass that decided nothing: the previous state stands, so the next pass tries again. */
function nothingDecided(state: LifecycleState, findings: number, failedDetectors: readonly string[]): PassResult {
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

function decide(
  inventory: InventoryView,
  state: LifecycleState,
  now: number,
  cluster: string,
  usage: UsageView,
  evidence: PassEvidence | undefined,
  rules: PreparedRules | undefined,
  options: PassOptions,
  stage: { current: "incident" | "compose" },
): PassResult {
  const findings: Finding[] = [];
  const failedDetectors: string[] = [];
  const quarantine = options.quarantine ?? new Map();
  const quarantined: Quarantined[] = [];
  for (const [name, full] of DETECTORS) {
    const detect = options.detectors?.[name] ?? full;
    const result = detectIsolated(name, detect, inventory, now, usage, quarantine);
    findings.push(...result.findings);
    quarantined.push(...result.added);
    if (result.failed !== undefined) failedDetectors.push(name);
  }
  if (failedDetectors.length > 0)
    return {
      ...nothingDecided(state, findings.length, failedDetectors),
      quarantined,
      quarantinedTotal: quarantine.size,
    };
  // A finding whose hold has not passed yet is not open: it only asks for a wake-up (failure-catalogue 0.3).
  // A new finding still waiting for its log is deferred the same way. A hold delays only the first opening:
  // a finding already in an incident stays in it whatever its hold, grace or wait says now.
  const told = new Set<string>();
  for (const incident of state.incidents.values()) for (const f of incident.findings) told.add(f.key);
  // Young-node grace (spec 1.8) moves a finding's opening time; it is then a wake-up like any hold.
  // Severity overrides (Pro) replace a finding's tier before anything is decided on it.
  const severity = rules?.severity;
  const rated = severity ? findings.map((f) => overrideSeverity(f, ownerKindOf(f, inventory), severity)) : findings;
  const failingNodes = new Set(rated.filter((f) => f.object.kind === "Node").map((f) => f.object.name));
  // Young-node grace (spec 1.8) is visible: how many findings it holds, and until when.
  const inGrace = { count: 0, until: 0 };
  const { findings: graced, waiting: waitingSymptoms } = waitForCauses(
    rated.map((f) => {
      const opensAt = opensAtWithGrace(f, inventory, failingNodes);
      if (opensAt === f.opensAt) return f;
      if (opensAt !== undefined && opensAt > now) {
        inGrace.count++;
        inGrace.until = Math.max(inGrace.until, opensAt);
      }
      return { ...f, opensAt };
    }),
    inventory,
    now,
  );
  const due = graced.filter((f) => f.opensAt === undefined || f.opensAt <= now || (told.has(f.key) && !f.starting));
  const waits = (f: Finding) => !told.has(f.key) && !options.baseline && (evidence?.pending(f) ?? false);
  const awaitingEvidence = due.filter(waits);
  const open = due.map((f) => (waits(f) ? f : withLog(f, evidence?.lines(f))));
  // Delivered while at least one finding it explains is in scope, not silenced and not held (spec 1.4):
  // silencing a symptom never hides a root cause that still affects others.
  const isOpen = (id: string) => state.incidents.has(id);
  // What a recovering incident told, and symptoms on what it named, are its recovery, not new problems.
  const traffic = absorbRecoveryTraffic(
    deferForEvidence(foldNamespaceOutages(groupFindings(open, inventory, isOpen), inventory, isOpen), waits, isOpen),
    state.incidents.values(),
    inventory,
  );
  const drafts = traffic.drafts.map((d) => {
    const held = rules !== undefined && d.findings.every((f) => suppressionOf(f, inventory, rules, now) !== undefined);
    // Acknowledgement is Pro: the composition root sets `acknowledge` only in that edition.
    const ack = rules?.acknowledge ? ackOf(d.root, d.findings, inventory, (text) => redact(text).text) : undefined;
    return held || ack ? { ...d, ...(held ? { held } : {}), ...(ack ? { ack } : {}) } : d;
  });
  // What this pass's incidents name: an object failing in one of them is not missing from another's recovery.
  const failing = new Map<string, string>();
  for (const d of drafts) for (const f of d.findings) failing.set(refKey(f.object), refKey(d.root));
  const recovery = (incident: Incident) =>
    recoveryOf(incident, inventory, (o: ObjectRef) => (failing.get(refKey(o)) ?? incident.id) !== incident.id);
  const stepped = stepLifecycle(state, drafts, now, cluster, {
    ...(options.baseline ? { baseline: true } : {}),
    recovery,
    absorbed: traffic.absorbed,
  });
  // The owner (spec 2.6) is read only for what is told: walking owner chains for every open incident on
  // every pass would cost more than the pass itself.
  const step = {
    ...stepped,
    decisions: stepped.decisions.map((d) => {
      const owner = ownerOf(d.incident.root, inventory);
      // Routes match the owner of any finding (spec 2.4): a lost node's pods belong to several teams.
      const owners = new Set(owner ? [owner] : []);
      for (const f of d.incident.findings) {
        const own = ownerOf(f.object, inventory);
        if (own) owners.add(own);
      }
      return owners.size ? { ...d, incident: { ...d.incident, ...(owner ? { owner } : {}), owners: [...owners] } } : d;
    }),
  };
  stage.current = "compose";
  let redacted = 0;
  let omitted = 0;
  const ipOwner = (ip: string) => inventory.ownerOfIp(ip);
  const messages: { message: Message; openedResolved?: Message }[] = [];
  for (const kind of ["startup summary", "roll-up"] as const) {
    const folded = step.decisions.filter((d) => d.delivery === kind);
    if (folded.length === 0) continue;
    const summary = renderSummary(kind, folded, cluster, ipOwner);
    redacted += summary.redacted;
    omitted += summary.omitted;
    messages.push({ message: summary.message });
  }
  for (const d of step.decisions) {
    if (d.delivery === "digest") continue;
    const folded = d.delivery === "startup summary" || d.delivery === "roll-up";
    // Summaries are informational: paging tools and trackers get each page-tier announcement on its own.
    if (folded && d.incident.mode !== "page") continue;
    const rendered = renderDecision(
      d,
      cluster,
      ipOwner,
      (incident) => recoveryLine(recovery(incident)),
      (incident) => nextStepsOf(incident, rules?.runbooks),
    );
    redacted += rendered.redacted;
    omitted += rendered.omitted;
    const hint =
      rules?.proHints && d.action !== "resolve" ? proHintFor(d.incident, inventory, rules.proHints, now) : undefined;
    const hinted = hint
      ? {
          ...rendered.message,
          text: `${rendered.message.text}\n${hint}`,
          markdown: `${rendered.message.markdown}\n_${hint}_`,
        }
      : rendered.message;
    const message = folded ? { ...hinted, delivery: "paging" as const } : hinted;
    messages.push({ message, ...(rendered.openedResolved ? { openedResolved: rendered.openedResolved } : {}) });
  }
  for (const r of step.closedRollUps) messages.push({ message: renderRollUpClosed(r, now, cluster) });
  if (step.digest) {
    const digest = renderDigest(step.digest, now, cluster, ipOwner);
    redacted += digest.redacted;
    omitted += digest.omitted;
    messages.push({ message: digest.message });
  }
  // The digest and 'still open' reminders are wake-ups too, so they go out on time in a quiet cluster.
  // The earliest future wake-up, found in one loop: a cluster can have tens of thousands of findings.
  let nextCheckAt: number | undefined;
  for (const t of [
    ...graced.flatMap((f) => [f.recheckAt, f.opensAt]),
    step.state.digest.dueAt,
    nextReminderAt(step.state),
  ]) {
    if (t !== undefined && t > now && (nextCheckAt === undefined || t < nextCheckAt)) nextCheckAt = t;
  }
  return {
    decisions: step.decisions,
    skipped: step.skipped,
    messages,
    state: step.state,
    open: openCount(step.state),
    findings: open.length - awaitingEvidence.length,
    redacted,
    omitted,
    failedDetectors,
    quarantined,
    quarantinedTotal: quarantine.size,
    unexplainedEvents: unexplainedEvents(inventory, now),
    awaitingEvidence,
    waitingSymptoms,
    inGrace,
    ...(nextCheckAt !== undefined ? { nextCheckAt } : {}),
  };
}

/**
 * Cause before symptom also while a log is read: a new incident whose findings include one still waiting for
 * its container's log waits as a whole (a Service joined to a crash is not told before the crash it joins);
 * in an open incident only the waiting finding waits, unless it is all there is (the incident goes on).
 */
function deferForEvidence(
  drafts: readonly IncidentDraft[],
  waits: (f: Finding) => boolean,
  isOpen: (id: string) => boolean,
): IncidentDraft[] {
  const out: IncidentDraft[] = [];
  for (const d of drafts) {
    if (!d.findings.some(waits)) out.push(d);
    else if (isOpen(refKey(d.root))) {
      const ready = d.findings.filter((f) => !waits(f));
      out.push(ready.length ? { ...d, findings: ready } : d);
    }
  }
  return out;
}

/** The resolve's `Now:` line: what is true of the root, and what is still not back when the wait ran out. */
function recoveryLine(recovery: Recovery): string | undefined {
  if (recovery.recovered) return recovery.now;
  const missing = `still not back after ${RECOVERY_WAIT_MS / 60_000} min: ${recovery.missing.slice(0, 3).join(", ")}${recovery.missing.length > 3 ? ` and ${recovery.missing.length - 3} more` : ""}`;
  return recovery.now ? `${recovery.now}; ${missing}` : missing;
}

/**
 * An incident's next steps (spec 2.1 `runbooks`): the built-in steps of its root reason, filled from the finding
 * that carries that reason (the root object's own first), then the runbook configured for the reason.
 */
function nextStepsOf(incident: Incident, runbooks: Readonly<Record<string, string>> | undefined): string[] {
  const carrying = incident.findings.filter((f) => f.reason === incident.rootReason);
  const root =
    carrying.find((f) => f.object.kind === incident.root.kind && f.object.name === incident.root.name) ?? carrying[0];
  // A root the correlator made (an endpoint, a shared error, a namespace) has no finding of its own reason.
  const steps = root
    ? nextStepsFor(incident.rootReason, root.object, root.container)
    : nextStepsFor(incident.rootReason, incident.root);
  const runbook = runbooks?.[incident.rootReason.toLowerCase()];
  return runbook ? [...steps, `Runbook: ${runbook}`] : steps;
}
