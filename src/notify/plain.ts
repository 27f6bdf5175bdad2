import type { Decision } from "../model/decision.ts";
import type { Message } from "../model/message.ts";
import type { ObjectRef } from "../model/object-ref.ts";
import { redact } from "../redact/redact.ts";
import { markOf, STATUS_EMOJI } from "./render.ts";

/**
 * A decision told in its plain form (issue 41, item 6): when rendering it threw (an odd object behind it), the
 * message still goes out in its thread — same id, action, tier, mode and dedup key, so routes and paging
 * tools treat it as the incident's — with one sentence from the fields that cannot fail: the root and reason as
 * strings, and why the details are missing (`stage`, `error`, redacted). No findings, evidence or links. Pure.
 */
export function plainDecision(decision: Decision, cluster: string, stage: string, error: string): Message {
  const incident = decision.incident;
  const action = decision.action;
  const mark = markOf(action, incident.mode);
  const emoji = STATUS_EMOJI[mark];
  const what = `${action === "resolve" ? "Resolved: " : action === "update" ? "Update: " : ""}${label(incident.root)}: ${String(incident.rootReason)}`;
  const where = cluster ? ` [${cluster}]` : "";
  const why = `mon could not render this message in full (stage ${stage}: ${redact(error).text}); its details are in mon's log and in mon explain.`;
  const text = `${emoji} ${what}${where}\n${why}`;
  return {
    id: `${incident.id}#${incident.revision}`,
    incidentId: incident.id,
    action,
    mark,
    emoji,
    tier: incident.tier,
    mode: incident.mode,
    title: what,
    text,
    markdown: text,
    root: incident.root,
    reason: String(incident.rootReason),
    findings: [],
    news: [],
    dedupKey: incident.dedupKey,
    ...(decision.delivery === "startup summary" || decision.delivery === "roll-up"
      ? {}
      : decision.delivery
        ? { delivery: decision.delivery }
        : {}),
    at: decision.at,
  };
}

/** `kind namespace/name` from whatever the reference holds, without assuming a field is a string. */
function label(ref: ObjectRef): string {
  const kind = String(ref?.kind ?? "object").toLowerCase();
  const name = String(ref?.name ?? "?");
  return `${kind} ${ref?.namespace ? `${String(ref.namespace)}/` : ""}${name}`;
}
