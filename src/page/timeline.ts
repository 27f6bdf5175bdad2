import type { Tier } from "../model/severity.ts";
import { escapeHtml } from "../providers/_kit/keys.ts";
import type { BlindPeriod, IncidentStory } from "./history.ts";

/** The span the timeline draws, ms: the last 6 hours (issue 44). */
export const TIMELINE_MS = 6 * 3_600_000;
/** Most incident rows drawn; the rest are counted under the drawing. */
export const MAX_ROWS = 60;

const WIDTH = 960;
const LABEL = 220;
const ROW = 22;
const AXIS = 24;

/** The colour of each tier on the page (and of its emoji in messages). */
export const TIER_COLOURS: Readonly<Record<Tier, string>> = {
  critical: "#c62828",
  high: "#ef6c00",
  medium: "#f9a825",
  warning: "#8d6e63",
  normal: "#1565c0",
};

/**
 * The last 6 hours before `now` (epoch ms) as an SVG drawn on the server (issue 44): one row per incident told in
 * that span — a bar from its first message to its resolve (or now), a mark per message (● announce, ◆ update,
 * ✓ resolve, ○ digest), a tick per what-changed event — mon's blind periods shaded across every row, and a
 * cursor at now. A node loss and the pods it took down are one incident, so one bar. Every text is escaped.
 */
export function timelineSvg(
  stories: readonly IncidentStory[],
  blind: readonly BlindPeriod[],
  now: number,
  linkTo: (id: string) => string = incidentHref,
): string {
  const start = now - TIMELINE_MS;
  const shown = stories
    .filter((s) => (s.resolvedAt ?? now) >= start)
    .sort((a, b) => a.firstAt - b.firstAt)
    .slice(-MAX_ROWS);
  const more = stories.filter((s) => (s.resolvedAt ?? now) >= start).length - shown.length;
  const height = AXIS + Math.max(1, shown.length) * ROW + 8;
  const x = (t: number) =>
    LABEL + Math.round(((Math.min(Math.max(t, start), now) - start) / TIMELINE_MS) * (WIDTH - LABEL - 10));
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="timeline" role="img" aria-label="incidents of the last 6 hours" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}">`,
  ];
  for (let h = 0; h <= 6; h++) {
    const t = start + h * 3_600_000;
    out.push(
      `<line class="hour" x1="${x(t)}" y1="${AXIS - 6}" x2="${x(t)}" y2="${height}" stroke="#ddd"/>`,
      `<text x="${x(t)}" y="14" font-size="11" text-anchor="middle" fill="#555">${h === 6 ? "now" : `−${6 - h} h`}</text>`,
    );
  }
  for (const b of blind) {
    if ((b.to ?? now) < start) continue;
    out.push(
      `<rect class="blind" x="${x(b.from)}" y="${AXIS - 6}" width="${Math.max(2, x(b.to ?? now) - x(b.from))}" height="${height - AXIS + 6}" fill="#9e9e9e" fill-opacity="0.25"><title>mon could not see part of the cluster</title></rect>`,
    );
  }
  shown.forEach((s, row) => {
    const y = AXIS + row * ROW;
    const mid = y + ROW / 2;
    const colour = TIER_COLOURS[s.tier];
    const label = s.root.length > 32 ? `${s.root.slice(0, 31)}…` : s.root;
    out.push(
      `<a href="${linkTo(s.id)}" class="row" data-incident="${escapeHtml(s.id)}">`,
      `<text x="4" y="${mid + 4}" font-size="12" fill="#222">${escapeHtml(label)}</text>`,
      `<rect class="bar" x="${x(s.firstAt)}" y="${y + 5}" width="${Math.max(3, x(s.resolvedAt ?? now) - x(s.firstAt))}" height="${ROW - 10}" rx="3" fill="${colour}" fill-opacity="${s.resolvedAt === undefined ? 0.85 : 0.35}"><title>${escapeHtml(`${s.title} (${s.reason})`)}</title></rect>`,
    );
    for (const c of s.changes) {
      if (c.at < start) continue;
      out.push(
        `<line class="change" x1="${x(c.at)}" y1="${y + 2}" x2="${x(c.at)}" y2="${y + ROW - 2}" stroke="#6a1b9a" stroke-width="2"><title>${escapeHtml(c.text)}</title></line>`,
      );
    }
    for (const m of s.messages) {
      if (m.at < start) continue;
      out.push(`${mark(m.action, x(m.at), mid)}<title>${escapeHtml(`${m.action}: ${m.title}`)}</title></g>`);
    }
    out.push("</a>");
  });
  out.push(
    `<line class="now" x1="${x(now)}" y1="${AXIS - 6}" x2="${x(now)}" y2="${height}" stroke="#000" stroke-width="2"/>`,
  );
  if (shown.length === 0)
    out.push(
      `<text x="${LABEL}" y="${AXIS + 15}" font-size="12" fill="#555">nothing was told in the last 6 hours</text>`,
    );
  out.push("</svg>");
  if (more > 0) out.push(`<p class="more">and ${more} more incidents in these 6 hours</p>`);
  return out.join("\n");
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
