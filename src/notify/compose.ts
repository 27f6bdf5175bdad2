import type { Decision } from "../model/decision.ts";
import type { Incident } from "../model/incident.ts";
import type { Message } from "../model/message.ts";
import { renderDecision } from "./render.ts";
import { renderDigest, renderRollUpClosed, renderSummary } from "./summary.ts";

/** What the compose stage renders: the step's decisions, the roll-ups it closed and the digest that fell due. */
export interface ComposeInput {
  readonly decisions: readonly Decision[];
  readonly closedRollUps: readonly {
    readonly id: string;
    readonly openedAt: number;
    readonly covers: readonly string[];
  }[];
  readonly digest?: { readonly opened: readonly Incident[]; readonly resolved: readonly Incident[] };
}

/**
 * What the compose stage reads besides the decisions: the cluster name, the pass's time (epoch ms), and what
 * the earlier stages know of an incident — the owner of an IP, the resolve's `Now:` line, the next steps, and
 * the Community line naming what Pro would add (absent in Pro).
 */
export interface ComposeContext {
  readonly cluster: string;
  readonly now: number;
  ipOwner(ip: string): string | undefined;
  recoveryLine(incident: Incident): string | undefined;
  nextSteps(incident: Incident): string[];
  proHint?(incident: Incident): string | undefined;
}

/** A message to queue, with the combined 'opened and resolved' form a resolve sends when its announcement never went. */
export interface Composed {
  readonly message: Message;
  readonly openedResolved?: Message;
}

/**
 * The compose stage of the pass (spec 6): a startup summary and a roll-up each name their announcements in one
 * message; every other decision is a message of its own — summaries are informational, so paging tools and
 * trackers also get each page-tier announcement on its own; then the roll-ups closed and the digest. Returns
 * the messages and the counts of redacted values and detail sections left out by their bounds. Pure.
 */
export function compose(
  input: ComposeInput,
  ctx: ComposeContext,
): { messages: Composed[]; redacted: number; omitted: number } {
  const { cluster, now } = ctx;
  let redacted = 0;
  let omitted = 0;
  const messages: Composed[] = [];
  for (const kind of ["startup summary", "roll-up"] as const) {
    const folded = input.decisions.filter((d) => d.delivery === kind);
    if (folded.length === 0) continue;
    const summary = renderSummary(kind, folded, cluster, ctx.ipOwner);
    redacted += summary.redacted;
    omitted += summary.omitted;
    messages.push({ message: summary.message });
  }
  for (const d of input.decisions) {
    if (d.delivery === "digest") continue;
    const folded = d.delivery === "startup summary" || d.delivery === "roll-up";
    if (folded && d.incident.mode !== "page") continue;
    const rendered = renderDecision(d, cluster, ctx.ipOwner, ctx.recoveryLine, ctx.nextSteps);
    redacted += rendered.redacted;
    omitted += rendered.omitted;
    const hint = d.action !== "resolve" ? ctx.proHint?.(d.incident) : undefined;
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
  for (const r of input.closedRollUps) messages.push({ message: renderRollUpClosed(r, now, cluster) });
  if (input.digest) {
    const digest = renderDigest(input.digest, now, cluster, ctx.ipOwner);
    redacted += digest.redacted;
    omitted += digest.omitted;
    messages.push({ message: digest.message });
  }
  return { messages, redacted, omitted };
}
