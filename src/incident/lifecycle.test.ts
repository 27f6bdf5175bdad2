import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Decision } from "../model/decision.ts";
import type { Finding } from "../model/finding.ts";
import { renderDecision } from "../notify/render.ts";
import type { IncidentDraft } from "../model/incident.ts";
import type { Tier } from "../model/severity.ts";
import { emptyLifecycle, nextReminderAt, openCount, stepLifecycle, type LifecycleState } from "./lifecycle.ts";
import type { Recovery } from "./recovery.ts";
import { dedupKey } from "./tiers.ts";

const root = { kind: "Deployment", namespace: "shop", name: "api" };
function finding(
  pod: string,
  reason = "CrashLoopBackOff",
  tier: Tier = "medium",
  extra: Partial<Finding> = {},
): Finding {
  return {
    key: `${reason}/Pod/shop/${pod}/app`,
    reason,
    object: { kind: "Pod", namespace: "shop", name: pod },
    tier,
    summary: `${pod} ${reason}`,
    evidence: [],
    since: 0,
    ...extra,
  };
}
const draft = (...findings: Finding[]): IncidentDraft => ({ root, rootReason: findings[0]?.reason ?? "", findings });
const nodeRoot = { kind: "Node", name: "n1" };
/** Node n1 lost (tier high), paging under `pageRule` when given. */
const nodeLost = (pageRule?: string): Finding => ({
  key: "NodeLost/Node//n1",
  reason: "NodeLost",
  object: nodeRoot,
  tier: "high",
  summary: "n1 lost",
  evidence: [],
  since: 0,
  ...(pageRule ? { pageRule } : {}),
});

function run(steps: IncidentDraft[][]): { actions: string[][]; state: LifecycleState; news: string[][] } {
  let state = emptyLifecycle();
  const actions: string[][] = [];
  const news: string[][] = [];
  steps.forEach((drafts, i) => {
    // Passes 10 minutes apart: past the update cooldown, inside the repage window.
    const out = stepLifecycle(state, drafts, 600_000 * (i + 1), "prod");
    actions.push(out.decisions.map((d) => d.action));
    news.push(out.decisions.flatMap((d) => [...d.news]));
    state = out.state;
  });
  return { actions, state, news };
}

describe("stepLifecycle (spec 3.1)", () => {
  test("announce once, stay quiet while nothing new is true, update on news, resolve when all findings are gone", () => {
    const one = draft(finding("p1"));
    const sameButMoreRestarts = draft({ ...finding("p1"), summary: "p1 crashed again, 9 restarts" });
    const two = draft(finding("p1"), finding("p2"));
    const { actions, news, state } = run([[one], [sameButMoreRestarts], [two], [two], []]);
    expect(actions).toEqual([["announce"], [], ["update"], [], ["resolve"]]);
    expect(news[2]).toEqual(["now affects 2 pods: shop/p1, shop/p2"]);
    expect(openCount(state)).toBe(0);
  });

  test("a new reason is news; a finding leaving is not", () => {
    const { actions, news } = run([
      [draft(finding("p1"), finding("p2"))],
      [draft(finding("p1"))],
      [draft(finding("p1"), finding("p1", "OOMKilled"))],
    ]);
    expect(actions).toEqual([["announce"], [], ["update"]]);
    expect(news[2]![0]).toStartWith("new: OOMKilled");
  });

  test("an incident made only of normal-tier findings goes to the digest, and is announced at once when it gets worse", () => {
    const low = draft(finding("p1", "PodNodeLost", "normal"));
    const worse = draft(finding("p1", "PodNodeLost", "normal"), finding("p2"));
    let state = emptyLifecycle();
    const seen: string[][] = [];
    [[low], [low], [worse], []].forEach((drafts, i) => {
      const out = stepLifecycle(state, drafts, 1_000 * (i + 1), "prod");
      seen.push(out.decisions.map((d) => `${d.action}${d.delivery ? `:${d.delivery}` : ""}`));
      state = out.state;
    });
    expect(seen).toEqual([["announce:digest"], [], ["announce"], ["resolve"]]);
    // Told on its own, it is no longer listed in the digest.
    expect(state.digest).toEqual({ opened: [], resolved: [] });
  });

  test("the low-priority digest lists normal-tier incidents opened or resolved, 30 minutes after its first entry", () => {
    const low = draft(finding("p1", "PodPreempted", "normal"));
    const a = stepLifecycle(emptyLifecycle(), [low], 0, "prod");
    expect(a.state.digest.dueAt).toBe(1_800_000);
    const b = stepLifecycle(a.state, [], 600_000, "prod");
    expect(b.decisions.map((d) => [d.action, d.delivery])).toEqual([["resolve", "digest"]]);
    expect(b.digest).toBeUndefined();
    const c = stepLifecycle(b.state, [], 1_800_000, "prod");
    expect(c.digest?.opened.map((i) => i.id)).toEqual(["Deployment/shop/api"]);
    expect(c.digest?.resolved.map((i) => [i.id, i.resolvedAt])).toEqual([["Deployment/shop/api", 600_000]]);
    expect(c.state.digest).toEqual({ opened: [], resolved: [] });
    expect(stepLifecycle(c.state, [], 3_600_000, "prod").digest).toBeUndefined();
  });

  test("a page rule makes the incident critical and paging: news when it starts paging", () => {
    const lost = nodeLost;
    let state = emptyLifecycle();
    const first = stepLifecycle(state, [{ root: nodeRoot, rootReason: "NodeLost", findings: [lost()] }], 0, "prod");
    expect(first.decisions[0]!.incident).toMatchObject({ tier: "high", mode: "notify" });
    state = first.state;
    const paged = stepLifecycle(
      state,
      [{ root: nodeRoot, rootReason: "NodeLost", findings: [lost("ClusterCriticalDown")] }],
      300_000,
      "prod",
    );
    expect(paged.decisions.map((d) => d.action)).toEqual(["update"]);
    expect(paged.decisions[0]!.incident).toMatchObject({
      tier: "critical",
      mode: "page",
      pageRule: "ClusterCriticalDown",
    });
  });

  test("a page nobody acknowledged is reminded of after 30 min, 1 h, 2 h, 4 h, then every 4 h; mon.io/ack stops it, removal resumes it", () => {
    const MIN = 60_000;
    const paging = nodeLost("ClusterCriticalDown");
    const page = (ack?: IncidentDraft["ack"]): IncidentDraft => ({
      root: nodeRoot,
      rootReason: "NodeLost",
      findings: [paging],
      ...(ack ? { ack } : {}),
    });
    const ack = { on: nodeRoot, note: "looking" };
    let state = emptyLifecycle();
    const said: string[] = [];
    const at = (minutes: number, draft = page()) => {
      const out = stepLifecycle(state, [draft], minutes * MIN, "prod");
      for (const d of out.decisions) said.push(`${minutes}: ${d.action} ${d.news.join(" | ")}`.trim());
      state = out.state;
    };
    for (const m of [0, 29, 30, 89, 90, 209, 210, 449, 450, 689, 690]) at(m);
    expect(said).toEqual([
      "0: announce",
      "30: update still paging, open for 30 min, not acknowledged",
      "90: update still paging, open for 1 h 30 min, not acknowledged",
      "210: update still paging, open for 3 h 30 min, not acknowledged",
      "450: update still paging, open for 7 h 30 min, not acknowledged",
      "690: update still paging, open for 11 h 30 min, not acknowledged",
    ]);
    expect(nextReminderAt(state)).toBe(930 * MIN);
    said.length = 0;
    // Acknowledged: quiet however long it pages. Removed: the cadence starts again from 30 minutes.
    at(700, page(ack));
    at(2000, page(ack));
    at(2010);
    at(2039);
    at(2040);
    expect(said).toEqual([
      '700: update Acknowledged on Node/n1: "looking"',
      "2010: update Acknowledgement removed",
      "2040: update still paging, open for 34 h, not acknowledged",
    ]);
  });

  test("the dedup key is derived from cluster and root only, so it survives a state reset", () => {
    expect(dedupKey("prod-eu1", root, "page")).toBe("mon-prod-eu1-deployment-shop-api-page");
    const a = stepLifecycle(emptyLifecycle(), [draft(finding("p1"))], 0, "prod").decisions[0]!.incident.dedupKey;
    const b = stepLifecycle(emptyLifecycle(), [draft(finding("p9"))], 99, "prod").decisions[0]!.incident.dedupKey;
    expect(a).toBe(b);
    expect(dedupKey("A Cluster/é", { kind: "Node", name: "x".repeat(300) }, "page").length).toBeLessThanOrEqual(255);
  });
});

describe("held drafts (out of scope, silenced, maintenance)", () => {
  test("a held incident is never announced; once released it is announced", () => {
    const held = { ...draft(finding("p1")), held: true };
    const { actions } = run([[held], [held], [draft(finding("p1"))]]);
    expect(actions).toEqual([[], [], ["announce"]]);
  });

  test("an announced incident that becomes held says nothing new, and resolves normally", () => {
    const { actions } = run([[draft(finding("p1"))], [{ ...draft(finding("p1"), finding("p2")), held: true }], []]);
    expect(actions).toEqual([["announce"], [], ["resolve"]]);
  });

  test("a warm takeover's baseline pass (issue 53): only the failures of objects failing when the caches first synced are summed up; what began while it watched is news, a low-priority one too", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 6 }), (apps) => {
        // Every pod started long before (a crash loop's finding dates from its pod's start, not its onset).
        const drafts = apps.map(([, low], i) => ({
          root: { kind: "Deployment", namespace: "shop", name: `app-${i}` },
          rootReason: "CrashLoopBackOff",
          findings: [finding(`app-${i}-p0`, "CrashLoopBackOff", low ? "normal" : "medium", { since: 0 })],
        }));
        const failingAtSync = new Set(apps.flatMap(([atSync], i) => (atSync ? [`Pod/shop/app-${i}-p0`] : [])));
        const out = stepLifecycle(emptyLifecycle(), drafts, 2_000_000, "prod", { baseline: true, failingAtSync });
        const summed = out.decisions.filter((d) => d.delivery === "startup summary").map((d) => d.incident.id);
        const told = (delivery: (d: string | undefined) => boolean) =>
          out.decisions.filter((d) => delivery(d.delivery)).map((d) => d.incident.id);
        // News: on its own or (two or more in one pass) in a roll-up; a low-priority one in the digest.
        const news = told((d) => d === undefined || d === "roll-up");
        const digested = told((d) => d === "digest");
        const quiet = out.skipped.filter((k) => k.reason === "baseline").map((k) => k.incident.id);
        const ids = (atSync: boolean, low: boolean) =>
          apps.flatMap(([s, l], i) => (s === atSync && l === low ? [`Deployment/shop/app-${i}`] : []));
        expect(summed).toEqual(ids(true, false));
        expect(quiet).toEqual(ids(true, true));
        expect(news).toEqual(ids(false, false));
        expect(digested).toEqual(ids(false, true));
        // Without a watch before (a cold start), every one is present at startup.
        const cold = stepLifecycle(emptyLifecycle(), drafts, 2_000_000, "prod", { baseline: true });
        expect(cold.decisions.filter((d) => d.delivery === "startup summary")).toHaveLength(
          apps.filter(([, low]) => !low).length,
        );
      }),
    );
  });

  test("baseline pass: what is open at startup is marked for the startup summary, later news updates as usual", () => {
    const first = stepLifecycle(emptyLifecycle(), [draft(finding("p1"))], 0, "prod", { baseline: true });
    expect(first.decisions.map((d) => [d.action, d.delivery])).toEqual([["announce", "startup summary"]]);
    const later = stepLifecycle(first.state, [draft(finding("p1"), finding("p2"))], 360_000, "prod");
    expect(later.decisions.map((d) => [d.action, d.delivery])).toEqual([["update", undefined]]);
    const fresh = stepLifecycle(
      later.state,
      [
        draft(finding("p1"), finding("p2")),
        {
          root: { kind: "Deployment", namespace: "shop", name: "web" },
          rootReason: "OOMKilled",
          findings: [finding("w1", "OOMKilled")],
        },
      ],
      420_000,
      "prod",
    );
    expect(fresh.decisions.map((d) => [d.action, d.incident.id, d.delivery])).toEqual([
      ["announce", "Deployment/shop/web", undefined],
    ]);
  });

  test("two or more announcements in one pass are one roll-up, which closes when the last of them resolves", () => {
    const web = { kind: "Deployment", namespace: "shop", name: "web" };
    const webDraft = { root: web, rootReason: "OOMKilled", findings: [finding("w1", "OOMKilled")] };
    const first = stepLifecycle(emptyLifecycle(), [draft(finding("p1")), webDraft], 1_000, "prod");
    expect(first.decisions.map((d) => [d.action, d.delivery])).toEqual([
      ["announce", "roll-up"],
      ["announce", "roll-up"],
    ]);
    expect(first.rollUp).toEqual({
      id: "roll-up@1000",
      openedAt: 1_000,
      covers: ["Deployment/shop/api", "Deployment/shop/web"],
      open: ["Deployment/shop/api", "Deployment/shop/web"],
    });
    const one = stepLifecycle(first.state, [webDraft], 2_000, "prod");
    expect(one.decisions.map((d) => [d.action, d.delivery])).toEqual([["resolve", undefined]]);
    expect(one.closedRollUps).toEqual([]);
    const both = stepLifecycle(one.state, [], 3_000, "prod");
    expect(both.closedRollUps.map((r) => r.id)).toEqual(["roll-up@1000"]);
    expect(both.state.rollUps.size).toBe(0);
    // A single announcement is a message of its own.
    expect(stepLifecycle(both.state, [draft(finding("p1"))], 4_000, "prod").decisions[0]!.delivery).toBeUndefined();
  });

  test("an incident open for a week gets one 'still open' update, then one each week; a held one gets none", () => {
    const DAY = 86_400_000;
    let state = emptyLifecycle();
    const said: string[] = [];
    for (const at of [0, 7 * DAY - 1, 7 * DAY, 8 * DAY, 14 * DAY]) {
      const out = stepLifecycle(state, [draft(finding("p1"))], at, "prod");
      said.push(out.decisions.map((d) => `${d.action} ${d.news.join(",")}`.trim()).join(";"));
      state = out.state;
    }
    expect(said).toEqual(["announce", "", "update still open after 7 days", "", "update still open after 14 days"]);
    expect(nextReminderAt(state)).toBe(21 * DAY);
    const held = stepLifecycle(state, [{ ...draft(finding("p1")), held: true }], 21 * DAY, "prod");
    expect(held.decisions).toEqual([]);
  });

  test("a crash every 10 minutes for a day is told twice, stated once with its rhythm, then only in the digest", () => {
    const MIN = 60_000;
    let state = emptyLifecycle();
    const own: string[] = [];
    let digests = 0;
    for (let t = 0; t < 24 * 60 * MIN; t += 10 * MIN) {
      for (const [at, drafts] of [
        [t, [draft(finding("p1"))]],
        [t + 5 * MIN, []],
      ] as const) {
        const out = stepLifecycle(state, drafts, at, "prod");
        for (const d of out.decisions)
          if (d.delivery === undefined) own.push(`${d.action}${d.news.length ? `: ${d.news.join("; ")}` : ""}`);
        if (out.digest) digests++;
        state = out.state;
      }
    }
    expect(own).toEqual([
      "announce",
      "resolve",
      "announce: failing again 5 minutes after it resolved",
      "resolve",
      "announce: failing again 5 minutes after it resolved; recurring: fails every 10 minutes; further recurrences go to the low-priority digest",
      "resolve",
    ]);
    // A digest goes out 30 minutes after the first entry gathered since the previous one: 40 in the day, not 144 messages.
    expect(digests).toBe(40);
  });

  test("a recurring page-tier incident still pages every time", () => {
    const paging = (at: number) => stepLifecycle(emptyLifecycle(), [], at, "prod");
    let state = paging(0).state;
    const pages: string[] = [];
    for (let i = 0; i < 4; i++) {
      const open = stepLifecycle(
        state,
        [draft(finding("p1", "CrashLoopBackOff", "critical", { pageRule: "P9" }))],
        i * 600_000,
        "prod",
      );
      pages.push(...open.decisions.map((d) => `${d.action}:${d.delivery ?? "own"}`));
      state = stepLifecycle(open.state, [], i * 600_000 + 300_000, "prod").state;
    }
    expect(pages).toEqual(["announce:own", "announce:own", "announce:own", "announce:own"]);
  });

  test("ack and un-ack: one update each, news and resolve still go out, the weekly reminder stops while acknowledged", () => {
    const DAY = 86_400_000;
    const ack = { on: { kind: "Pod", namespace: "shop", name: "p1" }, note: "on it" };
    const steps: [number, IncidentDraft[]][] = [
      [0, [draft(finding("p1"))]],
      [DAY, [{ ...draft(finding("p1")), ack }]],
      [2 * DAY, [{ ...draft(finding("p1"), finding("p2")), ack }]],
      [9.5 * DAY, [{ ...draft(finding("p1"), finding("p2")), ack }]],
      [10 * DAY, [draft(finding("p1"), finding("p2"))]],
      [11 * DAY, []],
    ];
    let state = emptyLifecycle();
    const said: string[] = [];
    for (const [at, drafts] of steps) {
      const out = stepLifecycle(state, drafts, at, "prod");
      said.push(out.decisions.map((d) => `${d.action} ${d.news.join(" | ")}`.trim()).join(";"));
      state = out.state;
    }
    expect(said).toEqual([
      "announce",
      'update Acknowledged on Pod/p1: "on it"',
      "update now affects 2 pods: shop/p1, shop/p2",
      "",
      // Quiet for 7.5 days but acknowledged: no reminder. The removal is said; reminders resume a quiet week later.
      "update Acknowledgement removed",
      "resolve",
    ]);
  });

  test("a new incident while the annotation is present is not pre-acknowledged; its announcement says so", () => {
    const ack = { on: { kind: "Pod", namespace: "shop", name: "p1" }, note: "old note" };
    const out = stepLifecycle(emptyLifecycle(), [{ ...draft(finding("p1")), ack }], 0, "prod");
    expect(out.decisions[0]!.news).toEqual([
      'mon.io/ack is present on Pod/p1 ("old note"); this new incident is not acknowledged by it until it is changed or added again',
    ]);
    expect(stepLifecycle(out.state, [{ ...draft(finding("p1")), ack }], 1_000, "prod").decisions).toEqual([]);
  });

  test("a recurrence in the digest stays there through a silence, instead of being announced when it lifts", () => {
    const MIN = 60_000;
    let state = emptyLifecycle();
    for (const at of [0, 10 * MIN]) {
      state = stepLifecycle(state, [draft(finding("p1"))], at, "prod").state;
      state = stepLifecycle(state, [], at + 2 * MIN, "prod").state;
    }
    const third = stepLifecycle(state, [draft(finding("p1"))], 50 * MIN, "prod");
    expect(third.decisions.map((d) => [d.action, d.delivery])).toEqual([["announce", "digest"]]);
    const held = stepLifecycle(third.state, [{ ...draft(finding("p1")), held: true }], 51 * MIN, "prod");
    expect(stepLifecycle(held.state, [draft(finding("p1"))], 52 * MIN, "prod").decisions).toEqual([]);
  });
});

describe("suppression decisions (spec 1.7) and the repage window (spec 3.1)", () => {
  const MIN = 60_000;

  test("news within 5 minutes of the last message waits and goes out in one update; the wait is one `cooldown` skip", () => {
    const a = stepLifecycle(emptyLifecycle(), [draft(finding("p1"))], 0, "prod");
    const b = stepLifecycle(a.state, [draft(finding("p1"), finding("p2"))], 1 * MIN, "prod");
    expect(b.decisions).toEqual([]);
    expect(b.skipped.map((s) => [s.reason, s.incident.id])).toEqual([["cooldown", "Deployment/shop/api"]]);
    expect(nextReminderAt(b.state)).toBe(5 * MIN);
    const c = stepLifecycle(
      b.state,
      [draft(finding("p1"), finding("p2"), finding("p2", "OOMKilled"))],
      2 * MIN,
      "prod",
    );
    expect(c.decisions).toEqual([]);
    expect(c.skipped).toEqual([]);
    const d = stepLifecycle(
      c.state,
      [draft(finding("p1"), finding("p2"), finding("p2", "OOMKilled"))],
      5 * MIN,
      "prod",
    );
    expect(d.decisions.map((x) => x.news.length)).toEqual([2]);
    expect(d.decisions[0]!.news.join("; ")).toContain("now affects 2 pods: shop/p1, shop/p2");
    // What became true and false again inside the cooldown is never told.
    const e = stepLifecycle(
      d.state,
      [draft(finding("p1"), finding("p2"), finding("p2", "OOMKilled"), finding("p3", "ImagePullBackOff"))],
      6 * MIN,
      "prod",
    );
    const f = stepLifecycle(
      e.state,
      [draft(finding("p1"), finding("p2"), finding("p2", "OOMKilled"))],
      7 * MIN,
      "prod",
    );
    const g = stepLifecycle(
      f.state,
      [draft(finding("p1"), finding("p2"), finding("p2", "OOMKilled"))],
      10 * MIN,
      "prod",
    );
    expect([...e.decisions, ...f.decisions, ...g.decisions]).toEqual([]);
  });

  test("escalation to paging never waits for the cooldown", () => {
    const a = stepLifecycle(emptyLifecycle(), [draft(finding("p1", "CrashLoopBackOff", "high"))], 0, "prod");
    const b = stepLifecycle(
      a.state,
      [draft(finding("p1", "CrashLoopBackOff", "critical", { pageRule: "LastReplicaDown" }))],
      1 * MIN,
      "prod",
    );
    expect(b.decisions.map((d) => [d.action, d.incident.mode])).toEqual([["update", "page"]]);
    expect(b.skipped).toEqual([]);
  });

  test("a root back within 30 minutes of its resolve is the same incident: revision counts on, still acknowledged; later it starts over", () => {
    const ack = { on: { kind: "Pod", namespace: "shop", name: "p1" }, note: "on it" };
    const a = stepLifecycle(emptyLifecycle(), [draft(finding("p1"))], 0, "prod");
    const b = stepLifecycle(a.state, [{ ...draft(finding("p1")), ack }], 10 * MIN, "prod");
    expect(b.decisions[0]!.news).toEqual(['Acknowledged on Pod/p1: "on it"']);
    const c = stepLifecycle(b.state, [], 12 * MIN, "prod");
    expect(c.decisions.map((d) => [d.action, d.incident.revision])).toEqual([["resolve", 3]]);
    const d = stepLifecycle(c.state, [{ ...draft(finding("p1")), ack }], 20 * MIN, "prod");
    expect(d.decisions.map((x) => [x.action, x.incident.revision, x.incident.dedupKey, x.news])).toEqual([
      [
        "announce",
        4,
        a.decisions[0]!.incident.dedupKey,
        ["failing again 8 minutes after it resolved; still acknowledged"],
      ],
    ]);
    expect(d.state.incidents.get("Deployment/shop/api")?.ack).toEqual(ack);
    const e = stepLifecycle(d.state, [], 21 * MIN, "prod");
    const f = stepLifecycle(e.state, [draft(finding("p1"))], 60 * MIN, "prod");
    expect(f.decisions.map((x) => [x.action, x.incident.revision, x.news])).toEqual([["announce", 1, []]]);
  });

  test("low-priority problems present at startup are skipped (`baseline`), quiet until they get worse", () => {
    const low = draft(finding("p1", "PodPreempted", "normal"));
    const a = stepLifecycle(emptyLifecycle(), [low], 0, "prod", { baseline: true });
    expect(a.decisions).toEqual([]);
    expect(a.skipped.map((s) => s.reason)).toEqual(["baseline"]);
    expect(a.state.digest.opened).toEqual([]);
    const b = stepLifecycle(a.state, [low], 40 * MIN, "prod");
    expect([...b.decisions, ...b.skipped]).toEqual([]);
    const c = stepLifecycle(b.state, [draft(finding("p1", "PodPreempted", "normal"), finding("p2"))], 41 * MIN, "prod");
    expect(c.decisions.map((d) => [d.action, d.delivery])).toEqual([["announce", undefined]]);
    // Resolved quietly when it never got worse.
    const quiet = stepLifecycle(a.state, [], 50 * MIN, "prod");
    expect(quiet.decisions).toEqual([]);
  });

  test("each would-be incident folded into another is recorded once, when it first folds in", () => {
    const lost = nodeLost();
    const node = (...workloads: string[]): IncidentDraft => ({
      root: nodeRoot,
      rootReason: "NodeLost",
      findings: [lost],
      folded: workloads.map((name) => ({
        root: { kind: "Deployment", namespace: "shop", name },
        reason: "node_inhibition" as const,
      })),
    });
    const a = stepLifecycle(emptyLifecycle(), [node("api", "web")], 0, "prod");
    expect(a.skipped.map((s) => [s.reason, s.subject.name, s.incident.id])).toEqual([
      ["node_inhibition", "api", "Node//n1"],
      ["node_inhibition", "web", "Node//n1"],
    ]);
    const b = stepLifecycle(a.state, [node("api", "web", "db")], 1_000, "prod");
    expect(b.skipped.map((s) => s.subject.name)).toEqual(["db"]);
    expect(stepLifecycle(b.state, [node("api", "web", "db")], 2_000, "prod").skipped).toEqual([]);
  });
});

describe("folding is never a resolve", () => {
  const service = { kind: "Service", namespace: "shop", name: "api" };
  const serviceFinding: Finding = {
    key: "ServiceNoReadyEndpoints/Service/shop/api",
    reason: "ServiceNoReadyEndpoints",
    object: service,
    tier: "high",
    summary: "service shop/api has no ready endpoint",
    evidence: [],
    since: 0,
  };
  const alone: IncidentDraft = { root: service, rootReason: "ServiceNoReadyEndpoints", findings: [serviceFinding] };
  const absorbed: IncidentDraft = {
    root,
    rootReason: "CrashLoopBackOff",
    findings: [finding("p1"), serviceFinding],
    folded: [{ root: service, reason: "cascading_suppression" }],
  };

  test("an announced conversation absorbed into a larger incident gets one update naming it; it resolves with it", () => {
    const { actions, news } = run([[alone], [absorbed], [absorbed], []]);
    expect(actions).toEqual([["announce"], ["announce", "update"], [], ["resolve", "resolve"]]);
    expect(news[1]).toEqual(["now part of: deployment shop/api (CrashLoopBackOff)"]);
  });

  test("an absorbed conversation that still fails when it stands alone again is told so at once, in its own thread", () => {
    // Passes 1 s apart: inside the update cooldown, which this message does not wait for.
    const lost = nodeLost();
    const crash = draft(finding("p1"));
    const node = (folds: boolean): IncidentDraft => ({
      root: nodeRoot,
      rootReason: "NodeLost",
      findings: folds ? [lost, finding("p1", "PodNodeLost")] : [lost],
      ...(folds ? { folded: [{ root, reason: "node_inhibition" as const }] } : {}),
    });
    let state = emptyLifecycle();
    const told: string[] = [];
    for (const [t, drafts] of [
      [0, [crash]],
      [1, [node(true)]],
      [2, [node(true)]],
      [3, [crash]],
      [4, [crash]],
    ] as const) {
      const out = stepLifecycle(state, drafts, t * 1000, "prod");
      state = out.state;
      for (const d of out.decisions) told.push(`${t} ${d.action} ${d.incident.id} ${d.news.join("; ")}`.trim());
    }
    expect(told).toEqual([
      "0 announce Deployment/shop/api",
      "1 announce Node//n1",
      "1 update Deployment/shop/api now part of: node n1 (NodeLost)",
      "3 update Deployment/shop/api still failing on its own: no longer part of node n1 (NodeLost)",
      "3 resolve Node//n1",
    ]);
  });

  test("whatever the passes, a failure a larger incident took is never left with that incident's all-clear", () => {
    // Each pass: is the node lost, is the crash failing, and does the node's incident take it (a pod on the node).
    const pass = fc.record({ nodeLost: fc.boolean(), failing: fc.boolean(), onNode: fc.boolean() });
    fc.assert(
      fc.property(fc.array(pass, { minLength: 2, maxLength: 12 }), fc.integer({ min: 1, max: 400 }), (passes, gap) => {
        let state = emptyLifecycle();
        // The crash thread's last word: told as failing, part of the node, or resolved.
        let last: "none" | "failing" | "part" | "resolved" = "none";
        passes.forEach((p, i) => {
          const absorbed = p.nodeLost && p.failing && p.onNode;
          const drafts: IncidentDraft[] = [];
          if (p.nodeLost)
            drafts.push({
              root: nodeRoot,
              rootReason: "NodeLost",
              findings: absorbed ? [nodeLost(), finding("p1", "PodNodeLost")] : [nodeLost()],
              ...(absorbed ? { folded: [{ root, reason: "node_inhibition" as const }] } : {}),
            });
          if (p.failing && !absorbed) drafts.push(draft(finding("p1")));
          const out = stepLifecycle(state, drafts, i * gap * 1000, "prod");
          state = out.state;
          for (const d of out.decisions) {
            if (d.incident.id !== "Deployment/shop/api") continue;
            if (d.action === "resolve") last = "resolved";
            else if (d.news.some((n) => n.startsWith("now part of"))) last = "part";
            else last = "failing";
          }
          // Standing alone and failing, after it was told: the thread's last word says it fails.
          if (p.failing && !absorbed && last !== "none") expect(last).toBe("failing");
        });
      }),
      { numRuns: 500 },
    );
  });

  test("a conversation never announced is folded silently", () => {
    const held: IncidentDraft = { ...alone, held: true } as IncidentDraft;
    const { actions } = run([[held], [absorbed], []]);
    expect(actions).toEqual([[], ["announce"], ["resolve"]]);
  });
});

describe("no false resolve: findings gone while the root does not show recovery yet", () => {
  const notYet = {
    recovered: false,
    now: "0/2 replicas available",
    missing: ["deployment shop/api 0/2 replicas available"],
  };
  const back = { recovered: true, now: "2/2 replicas available", missing: [] };
  /** Passes at the given seconds, each with its drafts and what recovery shows then. */
  const passes = (steps: [number, IncidentDraft[], Recovery][]) => {
    let state = emptyLifecycle();
    return steps.map(([t, drafts, recovery]) => {
      const out = stepLifecycle(state, drafts, t * 1000, "prod", { recovery: () => recovery });
      state = out.state;
      return { actions: out.decisions.map((d) => d.action), wake: nextReminderAt(out.state), state };
    });
  };

  test("waits silently while its root is not back, then resolves once, when it is", () => {
    const out = passes([
      [0, [draft(finding("p1"))], notYet],
      [10, [], notYet],
      [40, [], notYet],
      [45, [], back],
    ]);
    expect(out.map((p) => p.actions)).toEqual([["announce"], [], [], ["resolve"]]);
    // While it waits it asks to be looked at again when the wait runs out.
    expect(out[1]!.wake).toBe(10_000 + 5 * 60_000);
  });

  test("a finding back during the wait continues the conversation: no resolve, no 'failing again'", () => {
    const out = passes([
      [0, [draft(finding("p1"))], notYet],
      [10, [], notYet],
      [20, [draft(finding("p1"))], notYet],
      [30, [], notYet],
      [400, [], back],
    ]);
    expect(out.map((p) => p.actions)).toEqual([["announce"], [], [], [], ["resolve"]]);
    // The wait started again when the finding went away the second time (t=30), not at t=10.
    expect(out[3]!.state.incidents.get("Deployment/shop/api")?.recovering).toBe(30_000);
  });

  test("a root that never shows recovery resolves 5 minutes after its findings went away", () => {
    const out = passes([
      [0, [draft(finding("p1"))], notYet],
      [10, [], notYet],
      [309, [], notYet],
      [310, [], notYet],
    ]);
    expect(out.map((p) => p.actions)).toEqual([["announce"], [], [], ["resolve"]]);
  });

  test("an incident never told has no conversation to keep: a held one ends at once", () => {
    const held = { ...draft(finding("p1")), held: true };
    expect(
      passes([
        [0, [held], notYet],
        [10, [], notYet],
      ]).map((p) => [...p.state.incidents.keys()]),
    ).toEqual([["Deployment/shop/api"], []]);
  });
});

describe("news is what is new, not what follows from what was told", () => {
  test("a workload without available replica or a Service without endpoints joining a crash loop is no update", () => {
    const workloadDown: Finding = {
      ...finding("p1", "WorkloadUnavailable", "high"),
      key: "WorkloadUnavailable/Deployment/shop/api",
      object: root,
      symptom: true,
    };
    const serviceDown: Finding = {
      ...finding("p1", "ServiceNoReadyEndpoints", "high"),
      key: "ServiceNoReadyEndpoints/Service/shop/api",
      object: { kind: "Service", namespace: "shop", name: "api" },
      joins: [{ kind: "Pod", namespace: "shop", name: "p1" }],
    };
    const { actions } = run([
      [draft(finding("p1"))],
      [draft(finding("p1"), workloadDown)],
      [draft(finding("p1"), workloadDown, serviceDown)],
    ]);
    expect(actions).toEqual([["announce"], [], []]);
  });

  test("…but a workload's own failure with no cause in the incident is news when it appears; so is a Job giving up", () => {
    const stuck: Finding = {
      ...finding("p1", "ProgressDeadlineExceeded"),
      key: "ProgressDeadlineExceeded/Deployment/shop/api",
      object: root,
      symptom: true,
    };
    const down: Finding = { ...stuck, key: "WorkloadUnavailable/Deployment/shop/api", reason: "WorkloadUnavailable" };
    expect(run([[draft(down)], [draft(down, stuck)]]).actions).toEqual([["announce"], ["update"]]);
    const gaveUp: Finding = {
      ...finding("p1", "JobFailed"),
      key: "JobFailed/Job/shop/migrate",
      object: { kind: "Job", namespace: "shop", name: "migrate" },
    };
    expect(
      run([[draft(finding("p1", "ContainerExitedNonZero"))], [draft(finding("p1", "ContainerExitedNonZero"), gaveUp)]])
        .actions,
    ).toEqual([["announce"], ["update"]]);
  });
});

describe("an incident keeps the name of the cause it told", () => {
  test("the crash gone and only the workload's unavailability left while it clears: still blamed on the crash", () => {
    const down: Finding = {
      ...finding("p1", "WorkloadUnavailable", "high"),
      key: "WorkloadUnavailable/Deployment/shop/api",
      object: root,
      symptom: true,
    };
    let state = emptyLifecycle();
    const step = (drafts: IncidentDraft[], at: number) => {
      const out = stepLifecycle(state, drafts, at, "prod");
      state = out.state;
      return out.decisions;
    };
    step([draft(finding("p1"), down)], 0);
    step([{ ...draft(down), rootReason: "WorkloadUnavailable" }], 10_000);
    const [resolved] = step([], 20_000);
    expect(resolved).toMatchObject({ action: "resolve", incident: { rootReason: "CrashLoopBackOff" } });
  });
});

test("a Job whose pods go before it is still blamed on their exit codes, not on JobFailed (less explanatory)", () => {
  const exited = finding("migrate-1", "ContainerExitedNonZero", "warning");
  const gaveUp: Finding = {
    ...finding("migrate", "JobFailed", "warning"),
    key: "JobFailed/Job/shop/migrate",
    object: { kind: "Job", namespace: "shop", name: "migrate" },
  };
  let state = emptyLifecycle();
  const job = { kind: "Job", namespace: "shop", name: "migrate" };
  for (const drafts of [
    [{ root: job, rootReason: "ContainerExitedNonZero", findings: [exited, gaveUp] }],
    [{ root: job, rootReason: "JobFailed", findings: [gaveUp] }],
  ])
    state = stepLifecycle(state, drafts, 1_000, "prod").state;
  const [resolved] = stepLifecycle(state, [], 2_000, "prod").decisions;
  expect(resolved?.incident.rootReason).toBe("ContainerExitedNonZero");
});

describe("how late an incident was announced is the time of its announcement (issue 41, item 3)", () => {
  test("held by a silence for 20 minutes, told when it lifts, updated, resolved: the resolve says 30 minutes after it began", () => {
    const held = { ...draft(finding("p1")), held: true };
    // Passes 10 minutes apart from 10 min: held at 10 and 20, told at 30, an update at 40, resolved at 50.
    const { actions } = run([[held], [held], [draft(finding("p1"))], [draft(finding("p1"), finding("p2"))], []]);
    expect(actions).toEqual([[], [], ["announce"], ["update"], ["resolve"]]);
    let last = emptyLifecycle();
    let resolve: Decision | undefined;
    for (const [i, drafts] of [
      [held],
      [held],
      [draft(finding("p1"))],
      [draft(finding("p1"), finding("p2"))],
      [],
    ].entries()) {
      const out = stepLifecycle(last, drafts, 600_000 * (i + 1), "prod");
      resolve = out.decisions.find((d) => d.action === "resolve") ?? resolve;
      last = out.state;
    }
    expect(resolve?.incident).toMatchObject({ onsetAt: 0, openedAt: 600_000, announcedAt: 1_800_000 });
    expect(renderDecision(resolve!, "prod").message.text).toContain("announced 30 min after it began");
  });
});
