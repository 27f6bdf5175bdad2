import type { Tier } from "../model/severity.ts";
import { escapeHtml } from "../providers/_kit/keys.ts";
import type { BlindPeriod, IncidentStory } from "./history.ts";

/** The fixed ranges a reader may choose, as plain links (`?range=`), and how long each is, ms (issue 54). */
export const TIMELINE_RANGES = {
  "1h": 3_600_000,
  "6h": 6 * 3_600_000,
  "24h": 24 * 3_600_000,
  "7d": 7 * 86_400_000,
} as const;
/** A fixed range of the timeline. */
export type TimelineRange = keyof typeof TIMELINE_RANGES;
/** Most incident rows drawn; the rest are counted under the drawing. */
export const MAX_ROWS = 60;
/** Marks of one row closer than this, px, are drawn as one mark with their count. */
export const GROUP_PX = 8;

/**
 * How a timeline is laid out: `wide` (a desktop: labels in a column left of the bars) or `narrow` (a phone, 390
 * px: each label above its bar across the whole width, fewer ticks), drawn at its own size so text stays legible.
 */
export type TimelineLayout = "wide" | "narrow";
const LAYOUTS = {
  wide: { width: 960, label: 220, row: 22, bar: 5, labelY: 16, chars: 32, ticks: 8 },
  narrow: { width: 380, label: 6, row: 34, bar: 17, labelY: 12, chars: 52, ticks: 4 },
} as const;
const AXIS = 34;
const MIN = 60_000;
const HOUR = 3_600_000;
/** Tick steps of the axis, ms: the smallest that draws at most 8 ticks is used. */
const STEPS = [5 * MIN, 10 * MIN, 15 * MIN, 30 * MIN, HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR];

/** The colour of each tier on the page (and of its emoji in messages). */
export const TIER_COLOURS: Readonly<Record<Tier, string>> = {
  critical: "#c62828",
  high: "#ef6c00",
  medium: "#f9a825",
  warning: "#8d6e63",
  normal: "#1565c0",
};

/**
 * The span the timeline draws before `now`, ms: a chosen fixed range, else what the incidents need — from the
 * first message of the earliest one still shown, with a margin — at least an hour, at most a week (issue 54).
 */
export function timelineSpan(stories: readonly IncidentStory[], now: number, range?: TimelineRange): number {
  if (range) return TIMELINE_RANGES[range];
  const week = TIMELINE_RANGES["7d"];
  const earliest = Math.min(now, ...stories.filter((s) => (s.resolvedAt ?? now) >= now - week).map((s) => s.firstAt));
  return Math.min(week, Math.max(HOUR, Math.ceil(((now - earliest) * 1.1) / (5 * MIN)) * 5 * MIN));
}

/** A span in words: `45 min`, `6 h`, `2 d`. */
export function spanWords(ms: number): string {
  if (ms < HOUR) return `${Math.round(ms / MIN)} min`;
  if (ms < 48 * HOUR) return `${Math.round((ms / HOUR) * 10) / 10} h`;
  return `${Math.round((ms / (24 * HOUR)) * 10) / 10} d`;
}

/**
 * The incidents before `now` (epoch ms) as an SVG drawn on the server (issues 44, 54): over `timelineSpan`, one
 * row per incident told in it — a bar from its first message to its resolve (or now), a mark per message (●
 * announce, ◆ update, ✓ resolve, ○ digest; marks closer than GROUP_PX drawn as one with their count), a tick per
 * what-changed event — mon's blind periods shaded across every row and labelled, each time mon began (`starts`, the
 * first its history's start, the others restarts or takeovers) a labelled line, and a cursor at now. A node loss and the pods it took down are one incident,
 * so one bar. Every text is escaped.
 */
export function timelineSvg(
  stories: readonly IncidentStory[],
  blind: readonly BlindPeriod[],
  now: number,
  linkTo: (id: string) => string = incidentHref,
  options: { range?: TimelineRange; starts?: readonly number[]; layout?: TimelineLayout } = {},
): string {
  const layout = options.layout ?? "wide";
  const { width: WIDTH, label: LABEL, row: ROW } = LAYOUTS[layout];
  const L = LAYOUTS[layout];
  const span = timelineSpan(stories, now, options.range);
  const start = now - span;
  const inSpan = stories.filter((s) => (s.resolvedAt ?? now) >= start);
  const shown = [...inSpan].sort((a, b) => a.firstAt - b.firstAt).slice(-MAX_ROWS);
  const more = inSpan.length - shown.length;
  const height = AXIS + Math.max(1, shown.length) * ROW + 8;
  const x = (t: number) =>
    LABEL + Math.round(((Math.min(Math.max(t, start), now) - start) / span) * (WIDTH - LABEL - 10));
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="timeline timeline-${layout}" role="img" aria-label="incidents of the last ${spanWords(span)}" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}">`,
  ];
  const step = STEPS.find((s) => span / s <= L.ticks) ?? STEPS[STEPS.length - 1]!;
  for (let back = Math.floor(span / step) * step; back >= 0; back -= step) {
    const t = now - back;
    out.push(
      `<line class="tick-line" x1="${x(t)}" y1="${AXIS - 6}" x2="${x(t)}" y2="${height}" stroke="#ddd"/>`,
      `<text x="${x(t)}" y="14" font-size="11" text-anchor="${anchor(x(t), LABEL, WIDTH)}" fill="#555">${back === 0 ? "now" : `−${spanWords(back)}`}</text>`,
    );
  }
  for (const b of blind) {
    if ((b.to ?? now) < start) continue;
    const width = Math.max(2, x(b.to ?? now) - x(b.from));
    const what = `mon could not see part of the cluster${b.to === undefined ? " (still)" : ""}`;
    out.push(
      `<rect class="blind" x="${x(b.from)}" y="${AXIS - 6}" width="${width}" height="${height - AXIS + 6}" fill="#9e9e9e" fill-opacity="0.25"><title>${what}</title></rect>`,
      `<text class="blind-label" x="${x(b.from) + 2}" y="28" font-size="10" fill="#424242"${x(b.from) > WIDTH - 40 ? ' text-anchor="end"' : ""}>blind</text>`,
    );
  }
  // Starts closer than a label's width are one line, its label counting them.
  const starts = (options.starts ?? []).map((at, i) => ({ at, i, x: x(at) })).filter((b) => b.at > start);
  for (const group of groupMarks(starts, 70)) {
    const sx = group[0]!.x;
    const first = group[0]!.i === 0;
    const restarts = group.length - (first ? 1 : 0);
    const words = first
      ? `mon started${restarts ? `, restarted ×${restarts}` : ""}`
      : `mon restarted${restarts > 1 ? ` ×${restarts}` : ""}`;
    const what = first
      ? "mon began here: nothing before is on this page"
      : "mon restarted here (or a new leader took over)";
    const right = sx > WIDTH - 90;
    out.push(
      `<line class="started" x1="${sx}" y1="${AXIS - 6}" x2="${sx}" y2="${height}" stroke="#1b5e20" stroke-dasharray="4 3"><title>${what}</title></line>`,
      `<text class="started-label" x="${right ? sx - 2 : sx + 2}" y="28" font-size="10" fill="#1b5e20"${right ? ' text-anchor="end"' : ""}>${words}</text>`,
    );
  }
  shown.forEach((s, row) => {
    const y = AXIS + row * ROW;
    const mid = y + L.bar + 6;
    const colour = TIER_COLOURS[s.tier];
    const label = s.root.length > L.chars ? `${s.root.slice(0, L.chars - 1)}…` : s.root;
    out.push(
      `<a href="${linkTo(s.id)}" class="row" data-incident="${escapeHtml(s.id)}">`,
      `<text x="4" y="${y + L.labelY}" font-size="12" fill="#222">${escapeHtml(label)}</text>`,
      `<rect class="bar" x="${x(s.firstAt)}" y="${y + L.bar}" width="${Math.max(3, x(s.resolvedAt ?? now) - x(s.firstAt))}" height="12" rx="3" fill="${colour}" fill-opacity="${s.resolvedAt === undefined ? 0.85 : 0.35}"><title>${escapeHtml(`${s.title} (${s.reason})`)}</title></rect>`,
    );
    for (const c of s.changes) {
      if (c.at < start) continue;
      out.push(
        `<line class="change" x1="${x(c.at)}" y1="${y + L.bar - 3}" x2="${x(c.at)}" y2="${y + L.bar + 15}" stroke="#6a1b9a" stroke-width="2"><title>${escapeHtml(c.text)}</title></line>`,
      );
    }
    for (const group of groupMarks(
      s.messages.filter((m) => m.at >= start).map((m) => ({ ...m, x: x(m.at) })),
      GROUP_PX,
    )) {
      const titles = group.map((m) => `${m.action}: ${m.title}`).join("\n");
      const first = group[0]!;
      const count =
        group.length > 1
          ? `<text class="count" x="${first.x > WIDTH - 30 ? first.x - 7 : first.x + 7}" y="${y + L.bar + 2}" font-size="9" fill="#000"${first.x > WIDTH - 30 ? ' text-anchor="end"' : ""}>×${group.length}</text>`
          : "";
      out.push(`${mark(loudest(group), first.x, mid)}${count}<title>${escapeHtml(titles)}</title></g>`);
    }
    out.push("</a>");
  });
  out.push(
    `<line class="now" x1="${x(now)}" y1="${AXIS - 6}" x2="${x(now)}" y2="${height}" stroke="#000" stroke-width="2"/>`,
  );
  if (shown.length === 0)
    out.push(
      `<text x="${LABEL}" y="${AXIS + 15}" font-size="12" fill="#555">nothing was told in the last ${spanWords(span)}</text>`,
    );
  out.push("</svg>");
  if (more > 0) out.push(`<p class="more">and ${more} more incidents in these ${spanWords(span)}</p>`);
  return out.join("\n");
}

/**
 * Marks in x order, grouped: each group begins at a mark and takes every later one within `px` of that first
 * mark, so no two groups' marks are closer than `px` unless they are drawn as one. Pure.
 */
export function groupMarks<M extends { readonly x: number }>(marks: readonly M[], px: number): M[][] {
  const groups: M[][] = [];
  for (const m of [...marks].sort((a, b) => a.x - b.x)) {
    const last = groups[groups.length - 1];
    if (last && m.x - last[0]!.x < px) last.push(m);
    else groups.push([m]);
  }
  return groups;
}

/** The link to an incident's page: its id's parts each escaped for a URL. */
export function incidentHref(id: string): string {
  return `/incidents/${id.split("/").map(encodeURIComponent).join("/")}`;
}

function mark(action: string, cx: number, cy: number): string {
  const open = `<g class="mark mark-${action}">`;
  if (action === "announce") return `${open}<circle cx="${cx}" cy="${cy}" r="5" fill="#000"/>`;
  if (action === "resolve" || action === "opened_resolved")
    return `${open}<path d="M${cx - 5} ${cy} l4 4 l7 -8" stroke="#2e7d32" stroke-width="3" fill="none"/>`;
  if (action === "digest") return `${open}<circle cx="${cx}" cy="${cy}" r="4" fill="#fff" stroke="#000"/>`;
  return `${open}<path d="M${cx} ${cy - 5} l5 5 l-5 5 l-5 -5 z" fill="#000"/>`;
}

/** How an axis label at `x` is anchored so it stays inside the drawing: from its start at the left edge, its end at the right. */
function anchor(x: number, left: number, width: number): "start" | "middle" | "end" {
  return x < left + 20 ? "start" : x > width - 30 ? "end" : "middle";
}

/** The action a group of marks is drawn as: a resolve, else an announce, else an update, else a digest. */
function loudest(group: readonly { readonly action: string }[]): string {
  for (const action of ["resolve", "opened_resolved", "announce", "update"])
    if (group.some((m) => m.action === action)) return action;
  return group[0]!.action;
}
