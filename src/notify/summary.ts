import type { Decision } from "../model/decision.ts";
import type { Incident } from "../model/incident.ts";
import type { Message, MessageFinding, RouteFacts } from "../model/message.ts";
import { namespacesOf, refLabel } from "../model/object-ref.ts";
import { louder, type StatusMark, type Tier } from "../model/severity.ts";
import { STATUS_EMOJI, cleaner, describe, duration, messageFindings } from "./render.ts";

/** Findings a roll-up, summary or digest carries of each problem it names, and in all (issue 30). */
export const SUMMARY_FINDINGS_EACH = 50;
export const SUMMARY_FINDINGS = 250;

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
export function renderSummary(
  kind: SummaryKind,
  decisions: readonly Decision[],
  cluster: string,
  ipOwner?: (ip: string) => string | undefined,
): { message: Message; redacted: number; omitted: number } {
  if (decisions.length === 0) throw new Error(`a ${kind} needs at least one incident`);
  const counter = { n: 0 };
  const clean = cleaner(counter, ipOwner);
  const order = (d: Decision) => (d.incident.mode === "page" ? 0 : 1);
  const sorted = [...decisions].sort((a, b) => order(a) - order(b) || a.incident.id.localeCompare(b.incident.id));
  const pages = sorted.some((d) => d.incident.mode === "page");
  const mark: StatusMark = pages ? "page" : "notify";
  const tier = sorted.map((d) => d.incident.tier).reduce<Tier>((a, b) => louder(a, b), "normal");
  const n = sorted.length;
  const title =
    kind === "startup summary"
      ? `Startup summary: ${n} problem${n === 1 ? "" : "s"} already open`
      : `${n} new problems`;
  const note =
    kind === "startup summary"
      ? "These were failing when mon started; each is updated and resolved from here, new problems are announced on their own."
      : "They started together; each gets its own message when it changes or resolves.";
  const lines = listed(
    sorted,
    ({ incident: i }) =>
      `• ${refLabel(i.root)}: ${clean(describe(i))} (${i.tier}${i.mode === "page" ? ", pages" : ""})`,
  );
  // A flood's roll-up names every problem in its text and `covers`, and carries the first findings of each
  // (SUMMARY_FINDINGS_EACH), SUMMARY_FINDINGS in all: not every pod's evidence (issue 30).
  // Breadth first: every problem's first finding before any problem's second.
  const taken = sorted.map(() => 0);
  let total = 0;
  for (let round = 0; round < SUMMARY_FINDINGS_EACH && total < SUMMARY_FINDINGS; round++)
    for (const [k, d] of sorted.entries())
      if (total < SUMMARY_FINDINGS && d.incident.findings.length > round) {
        taken[k]! += 1;
        total += 1;
      }
  const findings: MessageFinding[] = sorted.flatMap((d, k) =>
    messageFindings(d.incident.findings.slice(0, taken[k]), clean),
  );
  const at = sorted[0]!.at;
  const message = clusterMessage(
    {
      id: `${kind === "startup summary" ? "startup-summary" : "roll-up"}@${at}`,
      action: "announce",
      mark,
      tier,
      mode: pages ? "page" : "notify",
      title,
      note,
      lines,
      reason: kind === "startup summary" ? "StartupSummary" : "RollUp",
      findings,
      at,
      delivery: kind,
      covers: sorted.map((d) => d.incident.id),
      problems: sorted.map((d) => routeFacts(d.incident)),
    },
    cluster,
  );
  return { message, redacted: counter.n, omitted: Math.max(0, n - MAX_SUMMARY_INCIDENTS) };
}

/**
 * Renders the restored-incident summary (spec 6): after a restart that found its state (Pro's state file), one
 * informational message naming the open problems mon continues, so people know which threads are live again.
 * Page-tier first, as in the startup summary; `covers` names them; each keeps its own thread, except at the
 * providers in `folded` (incident id → providers whose hourly budget folded its announcement), where it goes
 * on in the overflow digest and the line says so. `incidents` are the announced open ones (at least one;
 * throws Error when empty); `now` is epoch ms. Pure.
 */
export function renderRestoredSummary(
  incidents: readonly Incident[],
  now: number,
  cluster: string,
  folded: ReadonlyMap<string, readonly string[]> = new Map(),
): { message: Message; redacted: number; omitted: number } {
  if (incidents.length === 0) throw new Error("a restored-incident summary needs at least one incident");
  const counter = { n: 0 };
  const clean = cleaner(counter);
  const order = (i: Incident) => (i.mode === "page" ? 0 : 1);
  const sorted = [...incidents].sort((a, b) => order(a) - order(b) || a.id.localeCompare(b.id));
  const n = sorted.length;
  const pages = sorted.some((i) => i.mode === "page");
  const message = clusterMessage(
    {
      id: `restored@${now}`,
      action: "announce",
      mark: pages ? "page" : "notify",
      tier: sorted.map((i) => i.tier).reduce<Tier>((a, b) => louder(a, b), "normal"),
      mode: pages ? "page" : "notify",
      title: `Restored after a restart: ${n} problem${n === 1 ? "" : "s"} still open`,
      note: `mon restarted and continues these from its state; each goes on in its own thread${sorted.some((i) => folded.has(i.id)) ? ", except where the hourly budget folded it into the overflow digest" : ""}.`,
      lines: listed(sorted, (i) => {
        const at = folded.get(i.id);
        return `• ${refLabel(i.root)}: ${clean(describe(i))} (${i.tier}${i.mode === "page" ? ", pages" : ""}), open ${duration(now - i.openedAt)}${at?.length ? ` — no thread at ${at.join(", ")}: folded into the overflow digest by the hourly budget` : ""}`;
      }),
      reason: "RestoredSummary",
      findings: [],
      at: now,
      delivery: "restored summary",
      covers: sorted.map((i) => i.id),
      problems: sorted.map((i) => routeFacts(i)),
    },
    cluster,
  );
  return { message, redacted: counter.n, omitted: Math.max(0, n - MAX_SUMMARY_INCIDENTS) };
}

/**
 * Renders the message that closes a roll-up once every incident it named has resolved (spec 6): a `resolve`
 * in the roll-up's own conversation. `now` is epoch ms. Pure.
 */
export function renderRollUpClosed(
  rollUp: { readonly id: string; readonly openedAt: number; readonly covers: readonly string[] },
  now: number,
  cluster: string,
): Message {
  const n = rollUp.covers.length;
  return clusterMessage(
    {
      id: rollUp.id,
      revision: "close",
      action: "resolve",
      mark: "resolved",
      tier: "normal",
      mode: "notify",
      title: `Resolved: all ${n} problems of the roll-up`,
      lines: [
        `Rolled up at ${new Date(rollUp.openedAt).toISOString().slice(11, 16)} UTC; the last resolved ${duration(now - rollUp.openedAt)} later.`,
      ],
      reason: "RollUp",
      findings: [],
      at: now,
      delivery: "roll-up",
      covers: rollUp.covers,
    },
    cluster,
  );
}

/**
 * Renders the low-priority digest (spec 6): incidents gathered since the last digest (tier `normal`, and
 * recurrences told twice within a day, spec 1.8), oldest first, one line per root with its count when it
 * recurred, marked still open or resolved with its duration; 🔵. `digest.opened` and
 * `digest.resolved` are the lifecycle's lists; `now` is epoch ms. Pure. Returns the count of redacted values.
 */
export function renderDigest(
  digest: { readonly opened: readonly Incident[]; readonly resolved: readonly Incident[] },
  now: number,
  cluster: string,
  ipOwner?: (ip: string) => string | undefined,
): { message: Message; redacted: number; omitted: number } {
  const counter = { n: 0 };
  const clean = cleaner(counter, ipOwner);
  const key = (i: Incident) => `${i.id}@${i.openedAt}`;
  const ended = new Map(digest.resolved.map((i) => [key(i), i] as const));
  const occurrences = [...digest.opened.filter((i) => !ended.has(key(i))), ...digest.resolved].sort(
    (a, b) => a.openedAt - b.openedAt || a.id.localeCompare(b.id),
  );
  // A recurring problem is one line with its count; its state is that of its latest occurrence.
  const byId = new Map<string, Incident[]>();
  for (const i of occurrences) {
    const list = byId.get(i.id);
    if (list) list.push(i);
    else byId.set(i.id, [i]);
  }
  const items = [...byId.values()].map((list) => ({ latest: list.at(-1)!, times: list.length }));
  const n = items.length;
  const lines = listed(items, ({ latest: i, times }) => {
    const state =
      i.resolvedAt !== undefined
        ? `${times > 1 ? "the last " : ""}resolved after ${duration(i.resolvedAt - i.openedAt)}`
        : "still open";
    return `• ${refLabel(i.root)}: ${clean(describe(i))} — ${times > 1 ? `${times} times, ` : ""}${state}`;
  });
  const message = clusterMessage(
    {
      id: `digest@${now}`,
      action: "announce",
      mark: "low",
      tier: "normal",
      mode: "digest",
      title: `Low-priority digest: ${n} problem${n === 1 ? "" : "s"}`,
      lines,
      reason: "Digest",
      findings: items.flatMap(({ latest }) => messageFindings(latest.findings, clean)),
      at: now,
      delivery: "digest",
      covers: items.map(({ latest }) => latest.id),
      problems: items.map(({ latest }) => routeFacts(latest)),
    },
    cluster,
  );
  return { message, redacted: counter.n, omitted: Math.max(0, n - MAX_SUMMARY_INCIDENTS) };
}

/** Most reasons named in an overflow digest; the rest are counted as '+N other kinds'. */
export const MAX_OVERFLOW_REASONS = 10;

/**
 * Renders one provider's overflow digest (spec 6, 6 item 3): the notifications its hourly budget folded,
 * counted per reason, most common first, the rest as '+N other kinds'. `overflow.counts` maps reason to
 * count; `now` is epoch ms. Pure.
 */
export function renderOverflowDigest(
  overflow: {
    readonly provider: string;
    readonly since: number;
    readonly counts: ReadonlyMap<string, number>;
    readonly incidents: readonly string[];
  },
  now: number,
  cluster: string,
): Message {
  const sorted = [...overflow.counts.entries()].sort(([ra, a], [rb, b]) => b - a || ra.localeCompare(rb));
  const total = sorted.reduce((n, [, c]) => n + c, 0);
  const shown = sorted.slice(0, MAX_OVERFLOW_REASONS).map(([reason, n]) => `• ${reason}: ${n}`);
  const rest = sorted.length - shown.length;
  return clusterMessage(
    {
      id: `overflow-${overflow.provider}@${now}`,
      action: "announce",
      mark: "notify",
      tier: "warning",
      mode: "notify",
      title: `Overflow digest: ${total} notification${total === 1 ? "" : "s"} held back by the hourly budget`,
      note: `Since ${new Date(overflow.since).toISOString()} this channel reached its hourly budget of new conversations; these were not sent one by one.`,
      lines: [...shown, ...(rest > 0 ? [`+${rest} other kind${rest === 1 ? "" : "s"}`] : [])],
      reason: "OverflowDigest",
      findings: [],
      at: now,
      delivery: "digest",
      covers: overflow.incidents,
    },
    cluster,
  );
}

// --- internal ---

/** One line for each of the first MAX_SUMMARY_INCIDENTS items, the rest counted. */
function listed<T>(items: readonly T[], line: (item: T) => string): string[] {
  const shown = items.slice(0, MAX_SUMMARY_INCIDENTS).map(line);
  return items.length > MAX_SUMMARY_INCIDENTS
    ? [...shown, `… and ${items.length - MAX_SUMMARY_INCIDENTS} more`]
    : shown;
}

/**
 * A message about the cluster rather than one incident (summaries, roll-up close, digest): rooted at the
 * cluster, its own conversation `id`, the headline then an optional italic note then the lines.
 */
function clusterMessage(
  m: {
    id: string;
    revision?: string;
    action: Message["action"];
    mark: StatusMark;
    tier: Tier;
    mode: Message["mode"];
    title: string;
    note?: string;
    lines: readonly string[];
    reason: string;
    findings: Message["findings"];
    at: number;
    delivery: NonNullable<Message["delivery"]>;
    covers: readonly string[];
    problems?: readonly RouteFacts[];
  },
  cluster: string,
): Message {
  const emoji = STATUS_EMOJI[m.mark];
  const where = cluster ? ` [${cluster}]` : "";
  const name = cluster || "cluster";
  return {
    id: `${m.id}#${m.revision ?? "1"}`,
    incidentId: m.id,
    action: m.action,
    mark: m.mark,
    emoji,
    tier: m.tier,
    mode: m.mode,
    title: m.title,
    text: [`${emoji} ${m.title}${where}`, ...(m.note ? [m.note] : []), ...m.lines].join("\n"),
    markdown: [`${emoji} **${m.title}**${where}`, ...(m.note ? [`_${m.note}_`] : []), ...m.lines].join("\n"),
    root: { kind: "Cluster", name },
    reason: m.reason,
    findings: m.findings,
    news: [],
    dedupKey: `mon-${name}-${m.id.replace("@", "-")}`,
    at: m.at,
    delivery: m.delivery,
    covers: m.covers,
    ...(m.problems ? { problems: m.problems } : {}),
  };
}

/** What a route matches on for one incident (spec 2.4): its namespace, tier, every reason, its owner. */
export function routeFacts(i: Incident): RouteFacts {
  return {
    incidentId: i.id,
    namespaces: namespacesOf(i.root, i.findings),
    tier: i.tier,
    reasons: [...new Set([i.rootReason, ...i.findings.map((f) => f.reason)])],
    owners: i.owners ?? (i.owner ? [i.owner] : []),
  };
}
