import type { TraceEntry } from "../model/trace.ts";
import { TIERS } from "../model/severity.ts";
import { escapeHtml as e } from "../providers/_kit/keys.ts";
import type { BlindPeriod, IncidentStory, ToldMessage } from "./history.ts";
import {
  incidentHref,
  spanWords,
  TIER_COLOURS,
  TIMELINE_RANGES,
  type TimelineRange,
  timelineSpan,
  timelineSvg,
} from "./timeline.ts";

/** Most resolved incidents listed, newest first; the rest are counted (the search narrows them). */
export const MAX_RESOLVED_ROWS = 200;

/** What the resolved list is narrowed to: a namespace, a reason, words in the title, root or messages. */
export interface PageQuery {
  readonly q?: string;
  readonly namespace?: string;
  readonly reason?: string;
}

/** What the incidents page shows (issue 44): the incidents told, mon's blind periods, at `now` (epoch ms). */
export interface PageInput {
  readonly cluster: string;
  readonly now: number;
  readonly stories: readonly IncidentStory[];
  readonly blind: readonly BlindPeriod[];
  readonly query?: PageQuery;
  /** Where the page comes from, said under the title: `mon replay` of a file, or the running leader. */
  readonly source?: string;
  /**
   * One file holding everything (`mon replay --html`): each incident's page follows the list, with these traces
   * (by incident id), and links go to it in the file instead of to the server.
   */
  readonly inline?: { readonly traces: (id: string) => Readonly<Record<string, readonly TraceEntry[]>> };
  /** The vendor's thread id of an incident at a provider (a Slack `ts`, an issue key), when one is known. */
  readonly thread?: Thread;
  /** The timeline's fixed range when the reader chose one (`?range=`); else it fits the incidents shown. */
  readonly range?: TimelineRange;
  /** When mon began (epoch ms, oldest first): its history's start, then restarts and takeovers, drawn on the timeline. */
  readonly starts?: readonly number[];
}

/** The timeline range a query names (`1h`, `6h`, `24h`, `7d`), undefined for anything else. */
export function rangeOf(value: string | undefined): TimelineRange | undefined {
  return value !== undefined && Object.hasOwn(TIMELINE_RANGES, value) ? (value as TimelineRange) : undefined;
}

/** The vendor's thread id of incident `id` at `provider`, or undefined. */
export type Thread = (provider: string, id: string) => string | undefined;

/**
 * The incidents page (issue 44; docs/health.md "The incidents page"): server-rendered HTML, no script, no
 * resource from anywhere (styles inline, the timeline an inline SVG), readable without JavaScript. Open incidents
 * first (tier, root, reason, since when, findings, Changed: and Impact:, the providers told, the last message),
 * then the timeline (fitted to the incidents shown, or the `range` chosen), then the incidents resolved in the last 24 hours narrowed by `query`.
 * Every text from the cluster is escaped.
 */
export function renderIncidentsPage(input: PageInput): string {
  const { now } = input;
  const open = input.stories
    .filter((s) => s.resolvedAt === undefined)
    .sort((a, b) => TIERS.indexOf(a.tier) - TIERS.indexOf(b.tier) || a.firstAt - b.firstAt);
  const resolved = input.stories
    .filter((s) => s.resolvedAt !== undefined)
    .filter(matches(input.query ?? {}))
    .sort((a, b) => (b.resolvedAt ?? 0) - (a.resolvedAt ?? 0));
  const q = input.query ?? {};
  const linkTo = input.inline ? (id: string) => `#${anchor(id)}` : incidentHref;
  return page(`mon · ${input.cluster}`, [
    `<h1>mon · ${e(input.cluster)}</h1>`,
    `<p class="meta">${e(input.source ?? "the leader's memory since it began leading")} · at ${e(pageTime(now))}</p>`,
    `<h2>Open (${open.length})</h2>`,
    open.length
      ? open.map((s) => openCard(s, now, linkTo, input.thread)).join("\n")
      : `<p class="none">Nothing is open.</p>`,
    `<h2>The last ${spanWords(timelineSpan(input.stories, now, input.range))}</h2>`,
    rangeLinks(input),
    // Drawn twice, for a desktop and for a phone, each at a size whose text stays legible; CSS shows one.
    ...(["wide", "narrow"] as const).map(
      (layout) =>
        `<div class="tl-${layout}">${timelineSvg(input.stories, input.blind, now, linkTo, {
          layout,
          ...(input.range ? { range: input.range } : {}),
          ...(input.starts ? { starts: input.starts } : {}),
        })}</div>`,
    ),
    `<p class="legend">● announced · ◆ updated · ✓ resolved · ○ in a digest or summary · ×N marks that close together · <span class="tick">|</span> a change named by the incident · grey, "blind": mon could not see part of the cluster · dashed: mon started</p>`,
    `<h2>Resolved in the last 24 hours (${resolved.length})</h2>`,
    input.inline
      ? ""
      : `<form method="get" action="/incidents" class="search"><input name="q" placeholder="text" value="${e(q.q ?? "")}"> <input name="namespace" placeholder="namespace" value="${e(q.namespace ?? "")}"> <input name="reason" placeholder="reason" value="${e(q.reason ?? "")}"> <button type="submit">Search</button></form>`,
    resolved.length
      ? `<table class="resolved"><thead><tr><th>tier</th><th>incident</th><th>reason</th><th>began</th><th>resolved</th><th>open for</th></tr></thead><tbody>${resolved
          .slice(0, MAX_RESOLVED_ROWS)
          .map((r) => resolvedRow(r, linkTo))
          .join(
            "",
          )}</tbody></table>${resolved.length > MAX_RESOLVED_ROWS ? `<p class="more">and ${resolved.length - MAX_RESOLVED_ROWS} older ones: search to narrow the list</p>` : ""}`
      : `<p class="none">No resolved incident${q.q || q.namespace || q.reason ? " matches" : ""}.</p>`,
    ...(input.inline
      ? input.stories.map(
          (s) =>
            `<section class="incident-page" id="${e(anchor(s.id))}"><hr>${incidentBody(s, input.inline!.traces(s.id), now, "#top", input.thread)}</section>`,
        )
      : []),
  ]);
}

/**
 * One incident's page (issue 44): its facts, every message as it was sent, the explain trace of each object it
 * concerns (`trace`: by `Kind/namespace/name`, as `mon explain` reads it), and what was held back — held,
 * suppressed (by which rule) or folded into another incident — with the rule that did it.
 */
export function renderIncidentPage(
  story: IncidentStory,
  trace: Readonly<Record<string, readonly TraceEntry[]>>,
  input: { cluster: string; now: number; thread?: Thread },
): string {
  return page(`${story.title} · mon`, [incidentBody(story, trace, input.now, "/incidents", input.thread)]);
}

// --- internal ---

/** The timeline's ranges as plain links (a file from `mon replay --html` has none: it fits its incidents). */
function rangeLinks(input: PageInput): string {
  if (input.inline) return "";
  const q = input.query ?? {};
  const keep = Object.entries({ q: q.q, namespace: q.namespace, reason: q.reason })
    .filter(([, v]) => v)
    .map(([k, v]) => `&amp;${k}=${encodeURIComponent(v!)}`)
    .join("");
  const link = (range: TimelineRange | undefined, label: string) =>
    range === input.range
      ? `<strong>${label}</strong>`
      : `<a href="/incidents?range=${range ?? "fit"}${keep}">${label}</a>`;
  return `<p class="ranges">Range: ${link(undefined, "fit")} · ${(Object.keys(TIMELINE_RANGES) as TimelineRange[])
    .map((r) => link(r, r.replace("h", " h").replace("d", " d")))
    .join(" · ")}</p>`;
}

function incidentBody(
  story: IncidentStory,
  trace: Readonly<Record<string, readonly TraceEntry[]>>,
  now: number,
  back: string,
  thread?: Thread,
): string {
  const held = Object.entries(trace).flatMap(([object, entries]) =>
    entries
      // Held, suppressed, or folded (incident/explain.ts says "folded into"): being part of it is not holding back.
      .filter(
        (t) => t.step === "held" || t.step === "suppressed" || (t.step === "incident" && t.text.startsWith("folded")),
      )
      .map((t) => ({ object, t })),
  );
  return [
    `<p><a href="${back}">← all incidents</a></p>`,
    `<h1 style="border-left:8px solid ${TIER_COLOURS[story.tier]};padding-left:8px">${e(story.emoji)} <span class="tier">${e(story.tier)}</span> · ${e(story.title)}</h1>`,
    facts(story, now, thread),
    `<h2>Messages as sent (${story.messages.length})</h2>`,
    story.messages
      .map(
        (m) =>
          `<section class="message"><h3>${e(m.action)} · ${e(pageTime(m.at))}${m.providers.length ? ` · to ${e(m.providers.join(", "))}` : ""}</h3>${body(m)}</section>`,
      )
      .join("\n"),
    `<h2>Held back, and why (${held.length})</h2>`,
    held.length
      ? `<ul class="held">${held.map(({ object, t }) => `<li><code>${e(object)}</code> ${e(t.step)} · ${e(pageTime(t.at))}: ${e(t.text)}</li>`).join("")}</ul>`
      : `<p class="none">Nothing of this incident was held, suppressed or folded.</p>`,
    "<h2>Explain: what mon did with each object</h2>",
    Object.keys(trace).length
      ? Object.entries(trace)
          .map(
            ([object, entries]) =>
              `<section class="trace"><h3><code>${e(object)}</code></h3><ol>${entries.map((t) => `<li>${e(pageTime(t.at))} <b>${e(t.step)}</b> ${e(t.text)}</li>`).join("")}</ol></section>`,
          )
          .join("\n")
      : `<p class="none">No trace is kept for its objects (traces begin when this mon began leading).</p>`,
  ].join("\n");
}

/** An incident's anchor in a one-file page: its id with anything but letters, digits, `-` and `_` as `_`. */
function anchor(id: string): string {
  return `incident-${id.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

function openCard(s: IncidentStory, now: number, linkTo: (id: string) => string, thread?: Thread): string {
  const last = s.messages.at(-1);
  return [
    `<article class="incident" data-incident="${e(s.id)}" style="border-left:8px solid ${TIER_COLOURS[s.tier]}">`,
    `<h3><a href="${linkTo(s.id)}">${e(s.emoji)} <span class="tier">${e(s.tier)}</span> · ${e(s.title)}</a></h3>`,
    facts(s, now, thread),
    last
      ? `<details><summary>last message: ${e(last.action)} · ${e(pageTime(last.at))}</summary>${body(last)}</details>`
      : "",
    "</article>",
  ].join("\n");
}

function facts(s: IncidentStory, now: number, thread?: Thread): string {
  const providers = [...new Set(s.messages.flatMap((m) => m.providers))].map((p) => {
    const id = thread?.(p, s.id);
    return id ? `${p} (thread ${id})` : p;
  });
  return [
    "<dl>",
    `<dt>root</dt><dd>${e(s.root)}</dd>`,
    `<dt>reason</dt><dd>${e(s.reason)} · ${e(s.tier)}</dd>`,
    `<dt>since</dt><dd>${e(pageTime(s.firstAt))} (${e(ago(now - s.firstAt))})${s.resolvedAt !== undefined ? ` · resolved ${e(pageTime(s.resolvedAt))}` : ""}</dd>`,
    `<dt>findings</dt><dd>${s.findings}${s.objects.length ? `: ${e(s.objects.slice(0, 8).join(", "))}${s.objects.length > 8 ? ` and ${s.objects.length - 8} more` : ""}` : ""}</dd>`,
    s.changed ? `<dt>changed</dt><dd>${e(s.changed.replace(/^Changed:\s*/, ""))}</dd>` : "",
    s.impact ? `<dt>impact</dt><dd>${e(s.impact.replace(/^Impact:\s*/, ""))}</dd>` : "",
    `<dt>told to</dt><dd>${providers.length ? e(providers.join(", ")) : "no provider"}</dd>`,
    "</dl>",
  ].join("");
}

function resolvedRow(s: IncidentStory, linkTo: (id: string) => string): string {
  return `<tr data-incident="${e(s.id)}"><td>${e(s.emoji)} ${e(s.tier)}</td><td><a href="${linkTo(s.id)}">${e(s.root)}</a></td><td>${e(s.reason)}</td><td>${e(pageTime(s.firstAt))}</td><td>${e(pageTime(s.resolvedAt ?? 0))}</td><td>${e(ago((s.resolvedAt ?? 0) - s.firstAt).replace(" ago", ""))}</td></tr>`;
}

function matches(q: PageQuery): (s: IncidentStory) => boolean {
  const words = (q.q ?? "").toLowerCase().split(/\s+/).filter(Boolean);
  return (s) =>
    (!q.namespace || s.namespace === q.namespace) &&
    (!q.reason || s.reason.toLowerCase() === q.reason.toLowerCase()) &&
    words.every((w) =>
      [s.title, s.root, s.reason, ...s.messages.map((m) => m.text ?? m.title)].some((t) => t.toLowerCase().includes(w)),
    );
}

function page(title: string, body: readonly string[]): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)}</title>
<style>${STYLE}</style></head>
<body id="top">
${body.filter(Boolean).join("\n")}
</body></html>
`;
}

const STYLE = [
  "body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;max-width:1040px}",
  "h1{font-size:22px}h2{font-size:17px;margin-top:28px}h3{font-size:15px;margin:4px 0}",
  ".meta,.legend,.none,.more{color:#555}",
  ".incident{background:#fafafa;padding:8px 12px;margin:10px 0}",
  "dl{display:grid;grid-template-columns:7em 1fr;gap:2px 12px;margin:6px 0}dt{color:#555}dd{margin:0}",
  "pre{white-space:pre-wrap;background:#f3f3f3;padding:8px;font-size:12px}",
  "table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #e5e5e5;padding:4px 6px;text-align:left}",
  ".tick{color:#6a1b9a;font-weight:bold}.search input{padding:3px 6px}",
  "svg.timeline{max-width:100%;height:auto}.tl-narrow{display:none}",
  // A phone (issue 54): one column, the narrow timeline, the resolved table as one block per incident.
  "@media (max-width:640px){body{margin:10px}.tl-wide{display:none}.tl-narrow{display:block}",
  "dl{grid-template-columns:1fr}dt{font-weight:600;margin-top:4px}",
  "table.resolved thead{display:none}table.resolved tr{display:block;border-bottom:1px solid #e5e5e5;padding:4px 0}",
  "table.resolved td{display:inline-block;border:0;padding:1px 6px 1px 0}",
  ".search input{width:100%;box-sizing:border-box;margin:2px 0}h1{font-size:19px;overflow-wrap:anywhere}",
  "h3,p,pre,dd,td{overflow-wrap:anywhere}}",
].join("");

/** A message's text as sent, or its title when the text was let go for newer ones (page/history.ts). */
function body(m: ToldMessage): string {
  return m.text === undefined
    ? `<p class="none">${e(m.title)} (its text is no longer kept: newer messages took its room)</p>`
    : `<pre>${e(m.text)}</pre>`;
}

/** How the page writes a time (epoch ms): `2026-12-02 20:00:00 UTC`, one form everywhere on it. */
export function pageTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

function ago(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ${minutes % 60} min ago` : `${Math.floor(hours / 24)} days ago`;
}
