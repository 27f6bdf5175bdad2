import type { Decision } from "../model/decision.ts";
import { affectedPods, type Finding } from "../model/finding.ts";
import type { Incident } from "../model/incident.ts";
import type { Message, MessageFinding } from "../model/message.ts";
import { refLabel } from "../model/object-ref.ts";
import type { StatusMark } from "../model/severity.ts";
import { annotateIps } from "./ip-owners.ts";
import { redact } from "../redact/redact.ts";
import { changeLine, messageChanges } from "./changes.ts";
import { duration } from "./duration.ts";
import { impactLine } from "./impact.ts";

export { duration } from "./duration.ts";

/** The four status emoji (spec 3.2): red only for incidents that page. */
export const STATUS_EMOJI: Readonly<Record<StatusMark, string>> = {
  page: "🔴",
  notify: "🟠",
  low: "🔵",
  resolved: "✅",
};

/** Most findings listed in one message; the rest are counted. */
export const MAX_LISTED_FINDINGS = 10;

/**
 * Renders a lifecycle decision into a provider-neutral Message (notify/): plain text and Markdown, each
 * starting with exactly one status emoji; evidence redacted. A `resolve` also carries, in
 * `openedResolved`, the one combined message deliver/ sends instead when the announcement never went out
 * (spec 3.1). `cluster` is shown in the headline when set; `ipOwner` names the owners of addresses in the
 * evidence (spec 6.8). Pure. Returns the count of redacted values too.
 */
export function renderDecision(
  decision: Decision,
  cluster: string,
  ipOwner?: (ip: string) => string | undefined,
  recovery?: (incident: Decision["incident"]) => string | undefined,
  nextSteps?: (incident: Decision["incident"]) => readonly string[],
): { message: Message; openedResolved?: Message; redacted: number; omitted: number } {
  const counter = { n: 0 };
  const now = decision.action === "resolve" ? recovery?.(decision.incident) : undefined;
  const steps =
    decision.action === "announce" || decision.action === "update" ? (nextSteps?.(decision.incident) ?? []) : [];
  const message = render(decision, decision.action, cluster, counter, ipOwner, now, steps);
  const openedResolved =
    decision.action === "resolve" ? render(decision, "opened_resolved", cluster, counter, ipOwner, now, []) : undefined;
  // Findings past the listed ones are counted, not shown ("… and N more"); a resolve lists none.
  const omitted =
    decision.action === "resolve" ? 0 : Math.max(0, decision.incident.findings.length - MAX_LISTED_FINDINGS);
  // Evidence, summaries and notes arrive redacted (detect/evidence.ts, incident/ack.ts): what this message
  // shows was removed is counted from its markers, once per message told.
  const redacted = Math.max(counter.n, markers(message.text)) + (openedResolved ? markers(openedResolved.text) : 0);
  return { message, ...(openedResolved ? { openedResolved } : {}), redacted, omitted };
}

// --- internal ---

function render(
  decision: Decision,
  action: Message["action"],
  cluster: string,
  counter: { n: number },
  ipOwner: ((ip: string) => string | undefined) | undefined,
  recovered: string | undefined,
  nextSteps: readonly string[],
): Message {
  const incident = decision.incident;
  const mark = markOf(action, incident.mode);
  const emoji = STATUS_EMOJI[mark];
  const clean = cleaner(counter, ipOwner);
  const findings = messageFindings(incident.findings, clean);
  const title = headline(incident, action);
  const where = cluster ? ` [${cluster}]` : "";
  const lines: { text: string; md: string }[] = [
    { text: `${emoji} ${title}${where}`, md: `${emoji} **${title}**${where}` },
  ];
  const meta = `${incident.tier} · ${incident.rootReason}${incident.pageRule ? ` · page rule ${incident.pageRule}` : ""} · ${incident.findings.length} finding${incident.findings.length === 1 ? "" : "s"}${incident.owner ? ` · owner ${incident.owner}` : ""}`;
  // An announcement carries news only when it states something about its history (a steady recurrence).
  if (action === "update" || action === "announce") {
    for (const n of decision.news) lines.push({ text: `• ${clean(n)}`, md: `• ${clean(n)}` });
  }
  if (action === "resolve" || action === "opened_resolved") {
    // What changed comes first: "fixed" is read from it, not from what the incident was blamed on.
    if (recovered) lines.push({ text: `Now: ${recovered}.`, md: `Now: ${recovered}.` });
    const blame = `Was blamed on ${refLabel(incident.root)} (${incident.rootReason}); ${lasted(incident, incident.resolvedAt ?? decision.at)}.`;
    lines.push({ text: blame, md: blame });
  } else {
    lines.push({ text: meta, md: `_${meta}_` });
  }
  // What changed before it began comes right after the headline: a cut keeps it (notify/shrink.ts).
  const changed = (action === "announce" || action === "update") && incident.changed;
  if (changed) {
    const line = changeLine(changed, clean);
    lines.push({ text: line, md: line });
  }
  const impact = (action === "announce" || action === "update") && incident.impact;
  if (impact) {
    const line = impactLine(impact);
    lines.push({ text: line, md: line });
  }
  if (action !== "resolve") {
    for (const f of findings.slice(0, MAX_LISTED_FINDINGS)) {
      lines.push({ text: `• ${f.summary}`, md: `• ${f.summary}` });
      // Evidence already quoted in the summary is not repeated.
      const details = f.evidence
        .filter((e) => e.label !== "container" && !f.summary.includes(e.value))
        .map((e) => `${e.label}: ${e.value}`)
        .join(" · ");
      if (details && action !== "opened_resolved")
        lines.push({ text: `    ${details}`, md: `    \`${details.replace(/`/g, "'")}\`` });
    }
    if (findings.length > MAX_LISTED_FINDINGS) {
      const more = `… and ${findings.length - MAX_LISTED_FINDINGS} more`;
      lines.push({ text: more, md: more });
    }
  }
  if (nextSteps.length) {
    lines.push({ text: "Next steps:", md: "**Next steps:**" });
    for (const step of nextSteps) {
      const md = step.startsWith("kubectl ") ? `\`${step}\`` : step;
      lines.push({ text: `  ${step}`, md: `  ${md}` });
    }
  }
  return {
    id: `${incident.id}#${incident.revision}${action === "opened_resolved" ? "+" : ""}`,
    incidentId: incident.id,
    action,
    mark,
    emoji,
    tier: incident.tier,
    mode: incident.mode,
    title,
    text: lines.map((l) => l.text).join("\n"),
    markdown: lines.map((l) => l.md).join("\n"),
    root: incident.root,
    reason: incident.rootReason,
    findings,
    news: decision.news.map(clean),
    ...(nextSteps.length ? { nextSteps } : {}),
    dedupKey: incident.dedupKey,
    ...(incident.owner ? { owner: incident.owner } : {}),
    ...(incident.owners?.length ? { owners: incident.owners } : {}),
    ...(changed ? { changes: messageChanges(changed, clean) } : {}),
    ...(impact ? { impact } : {}),
    at: decision.at,
  };
}

/** The status mark of a message (spec 3.2): resolved for a resolve, else the incident's delivery mode's. */
export function markOf(action: Message["action"], mode: Incident["mode"]): StatusMark {
  if (action === "resolve" || action === "opened_resolved") return "resolved";
  return mode === "page" ? "page" : mode === "digest" ? "low" : "notify";
}

/** How many `[redacted…]` markers `text` shows: the values removed from it. */
export function markers(text: string): number {
  return text.match(/\[redacted(?:-[a-z0-9-]+)?\]/g)?.length ?? 0;
}

/**
 * A text cleaner for anything a pod or the cluster wrote (spec 6.8): credentials redacted (counted in
 * `counter.n`), IPv4 addresses followed by their owner when `ipOwner` knows it.
 */
export function cleaner(
  counter: { n: number },
  ipOwner?: (ip: string) => string | undefined,
): (text: string) => string {
  return (text) => {
    const r = redact(text);
    counter.n += r.count;
    return annotateIps(r.text, ipOwner);
  };
}

/**
 * The most findings one incident puts in a message (issue 30): a flood of 5,000 crashing pods is one incident
 * whose text counts them all, while its message carries the first 50 (root cause first) — redacting and
 * sending 5,000 evidence lists would cost more memory than the cluster's whole Inventory.
 */
export const MAX_MESSAGE_FINDINGS = 50;

/** Findings as a message carries them (at most MAX_MESSAGE_FINDINGS), summary and evidence passed through `clean`. */
export function messageFindings(findings: readonly Finding[], clean: (text: string) => string): MessageFinding[] {
  return findings.slice(0, MAX_MESSAGE_FINDINGS).map((f) => ({
    reason: f.reason,
    object: f.object,
    ...(f.container ? { container: f.container } : {}),
    tier: f.tier,
    summary: clean(f.summary),
    evidence: f.evidence.map((e) => ({ label: e.label, value: clean(e.value) })),
  }));
}

/** Gap between a failure's onset and its announcement worth explaining, ms. */
const ANNOUNCED_LATE_MS = 30_000;

/**
 * How long a failure lasted, from its onset (not its announcement): `open 2 min`, and when it was announced
 * noticeably later, when and why: `open 2 min 30 s; announced 2 min after it began, after its 2 min hold`.
 */
function lasted(incident: Incident, end: number): string {
  const onset = incident.onsetAt ?? incident.openedAt;
  const open = `open ${duration(end - onset)}`;
  const gap = (incident.announcedAt ?? incident.openedAt) - onset;
  if (gap < ANNOUNCED_LATE_MS) return open;
  const hold = incident.findings.find((f) => f.reason === incident.rootReason)?.holdMs;
  return `${open}; announced ${duration(gap)} after it began${hold ? `, after its ${duration(hold)} hold` : ""}`;
}

function headline(incident: Incident, action: Message["action"]): string {
  const root = refLabel(incident.root);
  const subject = describe(incident);
  switch (action) {
    case "announce":
      return `${root}: ${subject}`;
    case "update":
      return `Update: ${root}: ${subject}`;
    case "resolve":
      return `Resolved: ${root}`;
    case "opened_resolved":
      return `Opened and resolved: ${root}: ${subject}`;
  }
}

/** What an incident is about in a few words: `NotReady, 30 pods on it down`, `CrashLoopBackOff in 2 pods`. */
export function describe(incident: Incident): string {
  const root = incident.findings.find(
    (f) => f.object.kind === incident.root.kind && f.object.name === incident.root.name,
  );
  const symptoms = incident.findings.filter((f) => f !== root);
  // Counts say what they count: distinct pods, however many findings (containers, reasons) each has.
  // A cause's pods (a missing Secret's, which cannot start without it) count from its first message on.
  const podsIn = (findings: readonly Finding[]) =>
    affectedPods(root?.explains ? [...findings, { object: root.object, explains: root.explains }] : findings).length;
  if (incident.affected?.length) {
    const n = incident.affected.length;
    const named = `${incident.affected.slice(0, 3).map(refLabel).join(", ")}${n > 3 ? ", …" : ""}`;
    const workloads = `${n} workload${n === 1 ? "" : "s"}`;
    if (incident.root.kind === "Namespace") return `outage, ${workloads} failing (${named})`;
    if (incident.root.kind === "ControlPlane")
      return `heartbeats stopped on ${n} node${n === 1 ? "" : "s"} at once (${named})`;
    if (incident.root.kind === "Error") return `the same error in ${workloads} (${named})`;
    if (incident.root.kind === "Endpoint") return `unreachable, ${workloads} failing on it (${named})`;
    // A workload whose Service others fail on (issue 40): its own failure first, then who fails with it.
    return `${incident.rootReason}, ${workloads} failing on it (${named})`;
  }
  if (root && incident.root.kind === "Node") {
    const state =
      root.reason === "NodeLost" ? "unreachable" : root.reason === "NodeNotReady" ? "NotReady" : root.reason;
    const down = podsIn(symptoms);
    return down ? `${state}, ${down} pod${down === 1 ? "" : "s"} on it down` : state;
  }
  if (root) {
    // The headline names the incident's most explanatory finding (a crash over "no available replica"); a
    // ConfigMap or Secret that exists but lacks a key says which, not that it is missing.
    const key =
      root.reason === "ConfigMapMissing" || root.reason === "SecretMissing"
        ? root.evidence.find((e) => e.label === "key")?.value
        : undefined;
    const what = key ? `has no key ${key}` : incident.rootReason;
    const pods = podsIn(symptoms);
    return pods ? `${what}, ${pods} pod${pods === 1 ? "" : "s"} affected` : what;
  }
  const pods = podsIn(incident.findings);
  return pods ? `${incident.rootReason} in ${pods} pod${pods === 1 ? "" : "s"}` : incident.rootReason;
}
