import type { Decision } from "../model/decision.ts";
import type { Incident } from "../model/incident.ts";
import type { Message } from "../model/message.ts";
import { refLabel } from "../model/object-ref.ts";
import { louder, type StatusMark, type Tier } from "../model/severity.ts";
import { STATUS_EMOJI, cleaner, describe, duration, messageFindings } from "./render.ts";

/** Most incidents listed by name in one summary; the rest are counted. */
export const MAX_SUMMARY_INCIDENTS = 20;

/** The summaries that name several incidents in one message (spec 6). */
export type SummaryKind = "startup summary" | "roll-up";

/**
 * Renders a summary (spec 1.7, 6): the startup summary lists every problem already present when mon
 * started; a roll-up lists the announcements of one pass. Page-tier first; the status emoji is the loudest of
 * the incidents listed (red only when one of them pages); `covers` names the incidents, whose later updates and
 * resolves are messages of their own. `decisions` are the announcements (at least one; throws Error when
 * empty). Pure. Returns the count of redacted values too.
 */
export function renderSummary(kind: SummaryKind, decisions: readonly Decision[], cluster: string, ipOwner?: (ip: string) => string | undefined): { message: Message; redacted: number } {
  if (decisions.length === 0) throw new Error(`a ${kind} needs at least one incident`);
  const counter = { n: 0 };
  const clean = cleaner(counter, ipOwner);
  const order = (d: Decision) => (d.incident.mode === "page" ? 0 : 1);
  const sorted = [...decisions].sort((a, b) => order(a) - order(b) || a.incident.id.localeCompare(b.incident.id));
  const pages = sorted.some((d) => d.incident.mode === "page");
  const mark: StatusMark = pages ? "page" : "notify";
  const tier = sorted.map((d) => d.incident.tier).reduce<Tier>((a, b) => louder(a, b), "normal");
  const emoji = STATUS_EMOJI[mark];
  const n = sorted.length;
  const title = kind === "startup summary" ? `Startup summary: ${n} problem${n === 1 ? "" : "s"} already open` : `${n} new problems`;
  const where = cluster ? ` [${cluster}]` : "";
  const note =
    kind === "startup summary"
      ? "These were failing when mon started; each is updated and resolved from here, new problems are announced on their own."
      : "They started together; each gets its own message when it changes or resolves.";
  const lines = sorted.slice(0, MAX_SUMMARY_INCIDENTS).map((d) => {
    const i = d.incident;
    return `• ${refLabel(i.root)}: ${clean(describe(i))} (${i.tier}${i.mode === "page" ? ", pages" : ""})`;
  });
  if (n > MAX_SUMMARY_INCIDENTS) lines.push(`… and ${n - MAX_SUMMARY_INCIDENTS} more`);
  const findings = sorted.flatMap((d) => messageFindings(d.incident.findings, clean));
  const at = sorted[0]!.at;
  const prefix = kind === "startup summary" ? "startup-summary" : "roll-up";
  const message: Message = {
    id: `${prefix}@${at}#1`,
    incidentId: `${prefix}@${at}`,
    action: "announce",
    mark,
    emoji,
    tier,
    mode: pages ? "page" : "notify",
    title,
    text: [`${emoji} ${title}${where}`, note, ...lines].join("\n"),
    markdown: [`${emoji} **${title}**${where}`, `_${note}_`, ...lines].join("\n"),
    root: { kind: "Cluster", name: cluster || "cluster" },
    reason: kind === "startup summary" ? "StartupSummary" : "RollUp",
    findings,
    news: [],
    dedupKey: `mon-${cluster || "cluster"}-${prefix}-${at}`,
    at,
    delivery: kind,
    covers: sorted.map((d) => d.incident.id),
  };
  return { message, redacted: counter.n };
}

/**
 * Renders the message that closes a roll-up once every incident it named has resolved (spec 6): a `resolve`
 * in the roll-up's own conversation. `now` is epoch ms. Pure.
 */
export function renderRollUpClosed(rollUp: { readonly id: string; readonly openedAt: number; readonly covers: readonly string[] }, now: number, cluster: string): Message {
  const n = rollUp.covers.length;
  const emoji = STATUS_EMOJI.resolved;
  const title = `Resolved: all ${n} problems of the roll-up`;
  const where = cluster ? ` [${cluster}]` : "";
  const body = `Rolled up at ${new Date(rollUp.openedAt).toISOString().slice(11, 16)} UTC; the last resolved ${duration(now - rollUp.openedAt)} later.`;
  return {
    id: `${rollUp.id}#close`,
    incidentId: rollUp.id,
    action: "resolve",
    mark: "resolved",
    emoji,
    tier: "normal",
    mode: "notify",
    title,
    text: `${emoji} ${title}${where}\n${body}`,
    markdown: `${emoji} **${title}**${where}\n${body}`,
    root: { kind: "Cluster", name: cluster || "cluster" },
    reason: "RollUp",
    findings: [],
    news: [],
    dedupKey: `mon-${cluster || "cluster"}-${rollUp.id.replace("@", "-")}`,
    at: now,
    delivery: "roll-up",
    covers: rollUp.covers,
  };
}

/**
 * Renders the low-priority digest (spec 6): incidents gathered since the last digest (tier `normal`, and
 * recurrences told twice within a day, spec 1.8), oldest first, one line per root with its count when it
 * recurred, marked still open or resolved with its duration; 🔵. `digest.opened` and
 * `digest.resolved` are the lifecycle's lists; `now` is epoch ms. Pure. Returns the count of redacted values.
 */
export function renderDigest(digest: { readonly opened: readonly Incident[]; readonly resolved: readonly Incident[] }, now: number, cluster: string, ipOwner?: (ip: string) => string | undefined): { message: Message; redacted: number } {
  const counter = { n: 0 };
  const clean = cleaner(counter, ipOwner);
  const key = (i: Incident) => `${i.id}@${i.openedAt}`;
  const ended = new Map(digest.resolved.map((i) => [key(i), i] as const));
  const occurrences = [...digest.opened.filter((i) => !ended.has(key(i))), ...digest.resolved].sort((a, b) => a.openedAt - b.openedAt || a.id.localeCompare(b.id));
  // A recurring problem is one line with its count; its state is that of its latest occurrence.
  const byId = new Map<string, Incident[]>();
  for (const i of occurrences) byId.set(i.id, [...(byId.get(i.id) ?? []), i]);
  const items = [...byId.values()].map((list) => ({ latest: list.at(-1)!, times: list.length }));
  const n = items.length;
  const emoji = STATUS_EMOJI.low;
  const title = `Low-priority digest: ${n} problem${n === 1 ? "" : "s"}`;
  const where = cluster ? ` [${cluster}]` : "";
  const lines = items.slice(0, MAX_SUMMARY_INCIDENTS).map(({ latest: i, times }) => {
    const state = i.resolvedAt !== undefined ? `${times > 1 ? "the last " : ""}resolved after ${duration(i.resolvedAt - i.openedAt)}` : "still open";
    return `• ${refLabel(i.root)}: ${clean(describe(i))} — ${times > 1 ? `${times} times, ` : ""}${state}`;
  });
  if (n > MAX_SUMMARY_INCIDENTS) lines.push(`… and ${n - MAX_SUMMARY_INCIDENTS} more`);
  const message: Message = {
    id: `digest@${now}#1`,
    incidentId: `digest@${now}`,
    action: "announce",
    mark: "low",
    emoji,
    tier: "normal",
    mode: "digest",
    title,
    text: [`${emoji} ${title}${where}`, ...lines].join("\n"),
    markdown: [`${emoji} **${title}**${where}`, ...lines].join("\n"),
    root: { kind: "Cluster", name: cluster || "cluster" },
    reason: "Digest",
    findings: items.flatMap(({ latest }) => messageFindings(latest.findings, clean)),
    news: [],
    dedupKey: `mon-${cluster || "cluster"}-digest-${now}`,
    at: now,
    delivery: "digest",
    covers: items.map(({ latest }) => latest.id),
  };
  return { message, redacted: counter.n };
}
