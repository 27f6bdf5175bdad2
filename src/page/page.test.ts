import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Message } from "../model/message.ts";
import type { Tier } from "../model/severity.ts";
import { MAX_MESSAGES, MAX_TEXT_CHARS, RESOLVED_KEPT_MS, TellHistory } from "./history.ts";
import { MAX_RESOLVED_ROWS, rangeOf, renderIncidentPage, renderIncidentsPage } from "./html.ts";
import { GROUP_PX, groupMarks, timelineSpan, timelineSvg } from "./timeline.ts";

const T0 = Date.UTC(2026, 5, 1, 9);
const MIN = 60_000;

function message(over: Partial<Message> & { incidentId: string; action: Message["action"] }): Message {
  const root = { kind: "Node", name: "worker-2" };
  return {
    id: `${over.incidentId}#${over.action}`,
    mark: "notify",
    emoji: "🔴",
    tier: "critical" as Tier,
    mode: "notify",
    title: "node worker-2: unreachable, 40 pods on it down",
    text: "🔴 node worker-2: unreachable\nChanged: nothing changed in the 24 h before it began.\nImpact: deployment shop/web 1/3 available.",
    markdown: "",
    root,
    reason: "NodeNotReady",
    findings: Array.from({ length: 40 }, (_, i) => ({
      reason: "NodeNotReady",
      object: { kind: "Pod", namespace: "shop", name: `web-${i}` },
      tier: "critical" as Tier,
      summary: "down",
      evidence: [],
    })),
    news: [],
    dedupKey: over.incidentId,
    at: T0,
    ...over,
  } as Message;
}

/** Every tag name the page writes, so a test can say none came from the cluster. */
const TAGS = new Set(
  "html head meta title style body h1 h2 h3 p a div article dl dt dd details summary pre table thead tbody tr th td form input button section ul ol li code b hr span strong svg line text rect g circle path".split(
    " ",
  ),
);

describe("the incidents page's small things (issue 54)", () => {
  test("an updated open incident is titled as itself, not 'Update:'; its tier is written beside its emoji; one time format in the header", () => {
    const history = new TellHistory();
    history.sent(message({ incidentId: "Node//worker-2", action: "announce" }), [], T0);
    history.sent(
      message({
        incidentId: "Node//worker-2",
        action: "update",
        title: "Update: node worker-2: unreachable, 41 pods on it down",
      }),
      [],
      T0 + MIN,
    );
    const [story] = history.list(T0 + 2 * MIN);
    expect(story?.title).toBe("node worker-2: unreachable, 41 pods on it down");
    const html = renderIncidentsPage({
      cluster: "prod",
      now: T0 + 2 * MIN,
      stories: history.list(T0 + 2 * MIN),
      blind: [],
      source: "told by this mon since it began leading at 2026-06-01 08:00:00 UTC",
    });
    expect(/<h3>(.*?)<\/h3>/.exec(html)?.[1]).not.toContain("Update:");
    expect(html).toContain('🔴 <span class="tier">critical</span> · node worker-2');
    expect(renderIncidentPage(story!, {}, { cluster: "prod", now: T0 + 2 * MIN })).toContain(
      '<span class="tier">critical</span>',
    );
    const meta = /<p class="meta">(.*?)<\/p>/.exec(html)?.[1] ?? "";
    expect(meta).toContain("at 2026-06-01 09:02:00 UTC");
    expect(meta).not.toMatch(/\d{4}-\d\d-\d\dT/);
  });
});

describe("history that survives restarts and failovers (issue 54)", () => {
  test("property: what takeChanges hands out, kept as a store keeps it and restored into a new history, is the same page", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            incident: fc.integer({ min: 0, max: 7 }),
            action: fc.constantFrom<Message["action"]>("announce", "update", "resolve"),
            minutes: fc.integer({ min: 0, max: 40 * 60 }),
            blind: fc.boolean(),
          }),
          { maxLength: 60 },
        ),
        fc.integer({ min: 1, max: 5 }),
        (steps, flushes) => {
          const history = new TellHistory();
          const store = new Map<string, unknown>();
          const keep = () => {
            const c = history.takeChanges();
            for (const story of c.put) store.set(`story:${story.id}`, structuredClone(story));
            for (const id of c.removed) store.delete(`story:${id}`);
            if (c.blinds) store.set("blinds", structuredClone(c.blinds));
            if (c.starts) store.set("starts", [...c.starts]);
          };
          history.started(T0);
          let t = T0;
          for (const [i, step] of steps.entries()) {
            t += step.minutes * 1000;
            const incidentId = step.blind ? `blind:caches@${T0}` : `Deployment/shop/app-${step.incident}`;
            history.sent(message({ incidentId, action: step.action, id: `${incidentId}#${i}` }), [], t);
            if (i % flushes === 0) keep();
          }
          keep();
          const now = t + MIN;
          const restored = new TellHistory();
          restored.restore(
            {
              stories: [...store].filter(([k]) => k.startsWith("story:")).map(([, v]) => v as never),
              blinds: (store.get("blinds") as never) ?? [],
              starts: (store.get("starts") as number[]) ?? [],
            },
            now,
          );
          restored.started(now);
          expect(restored.list(now)).toEqual(history.list(now));
          expect(restored.blindPeriods()).toEqual(history.blindPeriods());
          expect(restored.startTimes()).toEqual([T0, now]);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("a timeline that fits what is there (issue 54)", () => {
  /** Incidents told at the given minutes after T0, each resolved `lasting` minutes later (open without). */
  const told = (at: readonly number[], lasting?: number) => {
    const history = new TellHistory();
    at.forEach((m, i) => {
      history.sent(message({ incidentId: `Node//worker-${i}`, action: "announce" }), [], T0 + m * MIN);
      if (lasting !== undefined)
        history.sent(message({ incidentId: `Node//worker-${i}`, action: "resolve" }), [], T0 + (m + lasting) * MIN);
    });
    return history;
  };
  /** The x of every drawn mark, per row. */
  const marksByRow = (svg: string) =>
    svg
      .split('<a href="')
      .slice(1)
      .map((row) =>
        [...row.matchAll(/<g class="mark[^"]*">(?:<circle cx="(\d+)"|<path d="M(\d+))/g)].map((m) =>
          Number(m[1] ?? m[2]),
        ),
      );

  test("16 minutes of incidents fill an hour, not the right edge of six; longer spans fit with a margin, a week at most; a chosen range wins", () => {
    const now = T0 + 16 * MIN;
    const stories = told([0, 5, 9, 14]).list(now);
    expect(timelineSpan(stories, now)).toBe(60 * MIN);
    const svg = timelineSvg(stories, [], now);
    const bars = [...svg.matchAll(/class="bar" x="(\d+)"/g)].map((m) => Number(m[1]));
    // The first incident begins in the first 3/4 of the drawing, not crammed at its right edge.
    expect(bars[0]! - 220).toBeLessThan(((960 - 230) * 3) / 4);
    expect(timelineSpan(told([0]).list(T0 + 180 * MIN), T0 + 180 * MIN)).toBe(200 * MIN);
    expect(timelineSpan(told([0]).list(T0 + 20 * 24 * 60 * MIN), T0 + 20 * 24 * 60 * MIN)).toBe(7 * 24 * 60 * MIN);
    expect(timelineSpan(stories, now, "24h")).toBe(24 * 60 * MIN);
    expect([rangeOf("6h"), rangeOf("fit"), rangeOf("toString")]).toEqual(["6h", undefined, undefined]);
    const page = renderIncidentsPage({ cluster: "prod", now, stories, blind: [], range: "6h" });
    expect(page).toContain("<h2>The last 6 h</h2>");
    expect(page).toContain('<a href="/incidents?range=fit">fit</a>');
    expect(page).toContain("<strong>6 h</strong>");
  });

  test("blind periods and mon's start are drawn and labelled; a resolved incident's bar ends at its resolve", () => {
    const now = T0 + 30 * MIN;
    const history = told([10], 5);
    const svg = timelineSvg(history.list(now), [{ id: "b", from: T0 + 2 * MIN, to: T0 + 4 * MIN }], now, undefined, {
      starts: [T0 + MIN, T0 + 20 * MIN],
    });
    expect(svg).toContain('class="blind-label"');
    expect(svg).toContain(">blind</text>");
    expect(svg).toContain(">mon started</text>");
    expect(svg).toContain(">mon restarted</text>");
    // Starts seconds apart are one line and one label.
    const close = timelineSvg([], [], now, undefined, { starts: [T0 + MIN, T0 + MIN + 1_000, T0 + MIN + 2_000] });
    expect(close.match(/class="started-label"/g)).toHaveLength(1);
    expect(close).toContain(">mon started, restarted ×2</text>");
    const bar = /class="bar" x="(\d+)" y="\d+" width="(\d+)"/.exec(svg)!;
    const resolve = Number(/<g class="mark mark-resolve"><path d="M(\d+)/.exec(svg)![1]) + 5;
    expect(Math.abs(Number(bar[1]) + Number(bar[2]) - resolve)).toBeLessThanOrEqual(1);
  });

  test("property: whatever the messages' times, no two marks of a row are drawn closer than the grouping distance, and every message is in one", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 6 * 60 * 60 }), { minLength: 1, maxLength: 40 }),
        fc.constantFrom<undefined | "1h" | "6h" | "24h" | "7d">(undefined, "1h", "6h", "24h", "7d"),
        (seconds, range) => {
          const history = new TellHistory();
          const sorted = [...seconds].sort((a, b) => a - b);
          for (const [i, sec] of sorted.entries())
            history.sent(
              message({ incidentId: "Node//worker-2", action: i === 0 ? "announce" : "update", id: `m${i}` }),
              [],
              T0 + sec * 1000,
            );
          const now = T0 + (sorted[sorted.length - 1]! + 60) * 1000;
          const svg = timelineSvg(history.list(now), [], now, undefined, range ? { range } : {});
          for (const xs of marksByRow(svg))
            for (let i = 1; i < xs.length; i++) expect(xs[i]! - xs[i - 1]!).toBeGreaterThanOrEqual(GROUP_PX - 5);
          const counted = [...svg.matchAll(/class="count"[^>]*>×(\d+)</g)].reduce((n, m) => n + Number(m[1]) - 1, 0);
          const drawn = marksByRow(svg).flat().length;
          const inSpan = history
            .list(now)[0]!
            .messages.filter((m) => m.at >= now - timelineSpan(history.list(now), now, range)).length;
          expect(drawn + counted).toBe(inSpan);
        },
      ),
      { numRuns: 150 },
    );
    expect(groupMarks([{ x: 0 }, { x: 7 }, { x: 9 }, { x: 30 }], 8).map((g) => g.map((m) => m.x))).toEqual([
      [0, 7],
      [9],
      [30],
    ]);
  });
});

describe("the incidents page (issue 44)", () => {
  test("a node loss and the forty pods it took down are one incident: one row, one bar, its marks", () => {
    const history = new TellHistory();
    history.sent(message({ incidentId: "Node//worker-2", action: "announce" }), [], T0);
    history.sent(message({ incidentId: "Node//worker-2", action: "update" }), [], T0 + 10 * MIN);
    history.sent(message({ incidentId: "Node//worker-2", action: "resolve" }), [], T0 + 30 * MIN);
    const svg = timelineSvg(history.list(T0 + 60 * MIN), [], T0 + 60 * MIN);
    expect(svg.match(/class="bar"/g)).toHaveLength(1);
    expect(svg.match(/class="mark mark-announce"/g)).toHaveLength(1);
    expect(svg.match(/class="mark mark-update"/g)).toHaveLength(1);
    expect(svg.match(/class="mark mark-resolve"/g)).toHaveLength(1);
    expect(svg).toContain('class="now"');
    const [story] = history.list(T0 + 60 * MIN);
    expect(story).toMatchObject({ findings: 40, firstAt: T0, resolvedAt: T0 + 30 * MIN });
    expect(story?.impact).toBe("Impact: deployment shop/web 1/3 available.");
  });

  test("open incidents come first with their facts; resolved ones below, searchable; gone 24 h after the resolve", () => {
    const history = new TellHistory();
    history.sent(message({ incidentId: "Node//worker-2", action: "announce" }), [], T0);
    history.sent(
      message({
        incidentId: "Deployment/shop/api",
        action: "announce",
        root: { kind: "Deployment", namespace: "shop", name: "api" },
        title: "deployment shop/api: CrashLoopBackOff",
        reason: "CrashLoopBackOff",
        tier: "high",
      }),
      [{ provider: "slack" }, { provider: "pagerduty" }].map((p) => ({
        ...p,
        message: message({ incidentId: "Deployment/shop/api", action: "announce" }),
      })) as never,
      T0 + MIN,
    );
    history.sent(message({ incidentId: "Node//worker-2", action: "resolve" }), [], T0 + 5 * MIN);
    const page = renderIncidentsPage({
      cluster: "prod",
      now: T0 + 10 * MIN,
      stories: history.list(T0 + 10 * MIN),
      blind: [],
      thread: (provider, id) =>
        provider === "slack" && id === "Deployment/shop/api" ? "1717232400.000100" : undefined,
    });
    expect(page.indexOf("Open (1)")).toBeLessThan(page.indexOf("Resolved in the last 24 hours (1)"));
    expect(page).toContain("slack (thread 1717232400.000100), pagerduty");
    const searched = (q: Record<string, string>) =>
      renderIncidentsPage({
        cluster: "prod",
        now: T0 + 10 * MIN,
        stories: history.list(T0 + 10 * MIN),
        blind: [],
        query: q,
      });
    expect(searched({ namespace: "kube-system" })).toContain("Resolved in the last 24 hours (0)");
    expect(searched({ q: "UNREACHABLE" })).toContain("Resolved in the last 24 hours (1)");
    expect(searched({ reason: "nodenotready" })).toContain("Resolved in the last 24 hours (1)");
    expect(history.list(T0 + 5 * MIN + RESOLVED_KEPT_MS + 1).map((s) => s.id)).toEqual(["Deployment/shop/api"]);
    // Past MAX_RESOLVED_ROWS, the newest are listed and the rest counted.
    const many = new TellHistory();
    for (let i = 0; i < MAX_RESOLVED_ROWS + 7; i++) {
      many.sent(message({ incidentId: `R${i}`, action: "announce" }), [], T0 + i);
      many.sent(message({ incidentId: `R${i}`, action: "resolve" }), [], T0 + i + 1);
    }
    const long = renderIncidentsPage({ cluster: "c", now: T0 + MIN, stories: many.list(T0 + MIN), blind: [] });
    expect(long.match(/<tr data-incident=/g)).toHaveLength(MAX_RESOLVED_ROWS);
    expect(long).toContain("and 7 older ones");
    expect(long).toContain(`data-incident="R${MAX_RESOLVED_ROWS + 6}"`);
    expect(long).not.toContain('data-incident="R0"');
  });

  test("an incident's page: its messages as sent, what was held back and by which rule, the explain trace", () => {
    const history = new TellHistory();
    history.sent(message({ incidentId: "Node//worker-2", action: "announce" }), [], T0);
    const page = renderIncidentPage(
      history.get("Node//worker-2")!,
      {
        "Pod/shop/web-1": [
          { at: T0, step: "detected", text: "NodeNotReady: down" },
          { at: T0, step: "suppressed", text: "silenced by silences[0] (namespace shop)" },
        ],
      },
      { cluster: "prod", now: T0 + MIN },
    );
    expect(page).toContain("Held back, and why (1)");
    expect(page).toContain("silenced by silences[0] (namespace shop)");
    expect(page).toContain("<code>Pod/shop/web-1</code>");
    expect(page).toContain("Messages as sent (1)");
  });

  test("blind periods are shaded; a message past MAX_MESSAGES keeps the announcement and the latest", () => {
    const history = new TellHistory();
    history.sent(message({ incidentId: `blind:watch@${T0}`, action: "announce", delivery: "notice" }), [], T0 + MIN);
    history.sent(message({ incidentId: `blind:watch@${T0}`, action: "resolve", delivery: "notice" }), [], T0 + 9 * MIN);
    expect(history.blindPeriods()).toEqual([{ id: `blind:watch@${T0}`, from: T0, to: T0 + 9 * MIN }]);
    expect(timelineSvg([], history.blindPeriods(), T0 + 60 * MIN)).toContain('class="blind"');
    for (let i = 0; i < MAX_MESSAGES + 5; i++)
      history.sent(message({ incidentId: "X", action: i ? "update" : "announce" }), [], T0 + i);
    const kept = history.get("X")!.messages;
    expect(kept).toHaveLength(MAX_MESSAGES);
    expect(kept[0]?.action).toBe("announce");
    expect(kept.at(-1)?.at).toBe(T0 + MAX_MESSAGES + 4);
  });

  test("property: nothing the cluster writes becomes markup (names, reasons, messages, queries)", () => {
    const hostile = fc.oneof(
      fc.string(),
      fc.constantFrom(
        "<script>alert(1)</script>",
        '"><img src=x onerror=alert(1)>',
        "</pre><iframe src=//evil>",
        "javascript:alert(1)",
        "<svg onload=alert(1)>",
        "' onmouseover='x",
      ),
    );
    fc.assert(
      fc.property(hostile, hostile, hostile, hostile, (name, title, text, query) => {
        const history = new TellHistory();
        const root = { kind: "Deployment", namespace: name, name };
        history.sent(
          message({ incidentId: `Deployment/${name}/${name}`, action: "announce", root, title, text, reason: name }),
          [],
          T0,
        );
        history.sent(
          message({ incidentId: `Deployment/${name}/${name}`, action: "resolve", root, title, text, reason: name }),
          [],
          T0 + MIN,
        );
        history.sent(message({ incidentId: `Pod/${name}/x`, action: "announce", root, title, text }), [], T0 + MIN);
        const pages = [
          renderIncidentsPage({
            cluster: name,
            now: T0 + 2 * MIN,
            stories: history.list(T0 + 2 * MIN),
            blind: [],
            query: { q: query },
          }),
          renderIncidentPage(
            history.get(`Pod/${name}/x`)!,
            { [`Pod/${name}/x`]: [{ at: T0, step: "suppressed", text }] },
            { cluster: name, now: T0 },
          ),
        ];
        for (const page of pages) {
          // Every `<` on the page opens one of the page's own tags, and no tag carries an event handler outside
          // its quoted values (a quote inside a value is escaped, so a value cannot end early).
          const tags = [...page.matchAll(/<\/?([A-Za-z][A-Za-z0-9-]*)([^>]*)>/g)];
          for (const [, tag, attributes] of tags) {
            expect(TAGS).toContain(tag!.toLowerCase());
            expect(attributes!.replace(/"[^"]*"/g, '""')).not.toMatch(/\son[a-z]+\s*=/i);
          }
          expect(page.split("<").length - 1).toBe(tags.length + 1); // and the doctype
        }
      }),
      { numRuns: 200 },
    );
  });

  test("memory is bounded: past the text budget the oldest incidents keep titles, not texts", () => {
    const history = new TellHistory();
    const text = "x".repeat(100_000);
    const n = Math.ceil(MAX_TEXT_CHARS / text.length) + 20;
    for (let i = 0; i < n; i++) history.sent(message({ incidentId: `I${i}`, action: "announce", text }), [], T0 + i);
    const kept = history.list(T0 + n);
    const chars = kept.reduce((sum, s) => sum + s.messages.reduce((a, m) => a + (m.text?.length ?? 0), 0), 0);
    expect(chars).toBeLessThanOrEqual(MAX_TEXT_CHARS);
    expect(kept).toHaveLength(n);
    expect(history.get("I0")!.messages[0]?.text).toBeUndefined();
    expect(history.get(`I${n - 1}`)!.messages[0]?.text).toBe(text);
    expect(renderIncidentPage(history.get("I0")!, {}, { cluster: "c", now: T0 })).toContain("no longer kept");
  });
});
