import type { Decision, Delivery, Skip } from "../model/decision.ts";
import type { Finding } from "../model/finding.ts";
import type { IncidentDraft } from "../model/incident.ts";
import { refKey } from "../model/object-ref.ts";
import type { TraceEntry } from "../model/trace.ts";

/** What the explain stage reads: each stage's output of this pass (epoch ms `now`). */
export interface ExplainInput {
  readonly now: number;
  /** Findings as detected, as rated (overrides, grace) and after the cause wait: their opening times. */
  readonly detected: readonly Finding[];
  readonly rated: readonly Finding[];
  readonly waited: readonly Finding[];
  readonly awaitingEvidence: readonly Finding[];
  /** Drafts after the hold stage (`held` set when every cause is suppressed, incident/hold.ts). */
  readonly drafts: readonly IncidentDraft[];
  readonly decisions: readonly Decision[];
  readonly skipped: readonly Skip[];
  /** Why a finding is suppressed, in words (incident/suppress.ts suppressionText), undefined when it is not. */
  suppression(f: Finding): string | undefined;
}

const FOLDED: Readonly<Record<string, string>> = {
  node_inhibition: "its node failed: its pods are told with the node",
  cascading_suppression: "a deeper cause explains it",
  mass_failure: "most of its namespace, or of the cluster's nodes, failed at once",
  baseline: "a low-priority problem already present at startup: kept quiet until it gets worse",
  cooldown: "news waits out the 5-minute update cooldown",
};

/** How a decision goes out when it is not a message of its own (model/decision.ts Delivery). */
const HOW: Readonly<Record<Delivery, string>> = {
  digest: "listed in the next low-priority digest",
  "roll-up": "told in this pass's roll-up",
  "startup summary": "told in the startup summary",
  paging: "sent on its own to paging tools and trackers",
};

/**
 * The explain stage of the pass (issue 32 `mon explain`): what this pass did with each object, by
 * `Kind/namespace/name` — detected as …, held until … (its own hold, young-node grace, its cause, its log),
 * suppressed (which silence rule, scope, maintenance), part of or folded into which incident and why, what
 * the lifecycle decided and how it goes out. Entries repeat every pass; the daemon keeps only changes. Pure.
 */
export function explain(input: ExplainInput): Map<string, TraceEntry[]> {
  const { now } = input;
  const out = new Map<string, TraceEntry[]>();
  const add = (key: string, step: TraceEntry["step"], text: string, incident?: string) => {
    const list = out.get(key) ?? [];
    list.push({ at: now, step, text, ...(incident ? { incident } : {}) });
    out.set(key, list);
  };
  const clock = (t: number) => `${new Date(t).toISOString().slice(11, 19)} UTC`;
  const rated = new Map(input.rated.map((f) => [f.key, f]));
  const waited = new Map(input.waited.map((f) => [f.key, f]));
  const inDraft = new Set(input.drafts.flatMap((d) => d.findings.map((f) => f.key)));
  const awaiting = new Set(input.awaitingEvidence.map((f) => f.key));
  for (const f of input.detected) {
    const key = refKey(f.object);
    add(key, "detected", `${f.reason} (${f.tier}): ${f.summary}`);
    if (inDraft.has(f.key)) continue;
    const r = rated.get(f.key);
    const w = waited.get(f.key);
    const opensAt = w?.opensAt;
    if (awaiting.has(f.key)) add(key, "held", "waits for its container's log (a few seconds)");
    else if (opensAt !== undefined && opensAt > now) {
      const why =
        opensAt !== r?.opensAt
          ? "waits for its cause (a symptom is told with what explains it)"
          : r?.opensAt !== f.opensAt
            ? "young-node grace: its node joined the cluster less than 10 minutes before"
            : "its hold (the condition must last before it is told)";
      add(key, "held", `${why}, until ${clock(opensAt)}`);
    }
  }
  for (const d of input.drafts) {
    const id = refKey(d.root);
    // A symptom held with its suppressed cause names the cause and the rule (incident/hold.ts).
    const cause = d.held
      ? d.findings.map((f) => ({ f, why: input.suppression(f) })).find((c) => c.why !== undefined)
      : undefined;
    for (const f of d.findings) {
      const key = refKey(f.object);
      add(key, "incident", `part of incident ${id} (${d.rootReason})`, id);
      const own = d.held ? input.suppression(f) : undefined;
      const why =
        own ??
        (cause
          ? `with its cause ${refKey(cause.f.object).replace("//", "/")} (${cause.f.reason}), ${cause.why}`
          : undefined);
      if (why) add(key, "suppressed", why, id);
    }
  }
  for (const s of input.skipped) {
    const key = refKey(s.subject);
    const why = FOLDED[s.reason] ?? s.reason;
    if (s.reason === "baseline" || s.reason === "cooldown") add(key, "decided", `nothing sent: ${why}`, s.incident.id);
    else add(key, "incident", `folded into incident ${s.incident.id}: ${why}`, s.incident.id);
  }
  for (const d of input.decisions) {
    const how = d.delivery ? HOW[d.delivery] : "a message of its own";
    const text = `${d.action} (revision ${d.incident.revision}): ${how}`;
    const keys = new Set([refKey(d.incident.root), ...d.incident.findings.map((f) => refKey(f.object))]);
    for (const key of keys) add(key, "decided", text, d.incident.id);
  }
  return out;
}
