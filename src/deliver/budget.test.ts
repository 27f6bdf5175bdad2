import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import fc from "fast-check";
import { type BudgetRecord, type Budgets, createBudgets } from "./budget.ts";

const MIN = 60_000;

describe("hourly budget (spec 6 item 3, 8)", () => {
  test("3 new conversations, the rest and their later messages fold into one overflow digest; pages are exempt", () => {
    const budgets = createBudgets(
      new Map([
        ["slack", 3],
        ["pagerDuty", 3],
      ]),
    );
    const admitted = (m: ReturnType<typeof message>, now: number) =>
      ["pagerDuty", "slack"].filter((p) => budgets.admit(p, m, now));
    const sent = Array.from({ length: 10 }, (_, i) =>
      admitted(message(`i${i}`, "announce", { reason: i % 3 === 0 ? "OOMKilled" : "CrashLoopBackOff" }), i * 1000),
    );
    expect(sent.filter((t) => t.includes("slack"))).toHaveLength(3);
    // Updates and resolves of announced conversations are never counted; those of folded ones fold too.
    expect(admitted(message("i0", "update"), 20_000)).toEqual(["pagerDuty", "slack"]);
    expect(admitted(message("i9", "resolve"), 21_000)).toEqual([]);
    expect(admitted(message("p", "announce", { mode: "page" }), 22_000)).toEqual(["pagerDuty", "slack"]);
    expect(budgets.nextDueAt()).toBe(3_000 + 10 * MIN);
    expect(budgets.due(5 * MIN)).toEqual([]);
    const due = budgets.due(3_000 + 10 * MIN);
    expect(due.map((o) => [o.provider, [...o.counts.entries()]])).toEqual([
      [
        "pagerDuty",
        [
          ["OOMKilled", 3],
          ["CrashLoopBackOff", 5],
        ],
      ],
      [
        "slack",
        [
          ["OOMKilled", 3],
          ["CrashLoopBackOff", 5],
        ],
      ],
    ]);
    // An hour later the budget is free again.
    expect(admitted(message("later", "announce"), 3_700_000)).toEqual(["pagerDuty", "slack"]);
  });

  test("0 is unlimited; summaries, roll-ups and digests are never counted", () => {
    const budgets = createBudgets(new Map([["slack", 0]]));
    for (let i = 0; i < 100; i++) expect(budgets.admit("slack", message(`i${i}`, "announce"), i)).toBe(true);
    const limited = createBudgets(new Map([["slack", 1]]));
    expect(limited.admit("slack", message("a", "announce"), 0)).toBe(true);
    expect(limited.admit("slack", message("r", "announce", { delivery: "roll-up" }), 1)).toBe(true);
    expect(limited.admit("slack", message("b", "announce"), 2)).toBe(false);
  });
});

describe("a budget taken up by the next process decides as if it had never stopped (issue 29.7)", () => {
  const step = fc.record({
    provider: fc.constantFrom("slack", "webhook"),
    incident: fc.constantFrom("a", "b", "c", "d", "e"),
    action: fc.constantFrom("announce", "announce", "update", "update", "resolve", "opened_resolved"),
    page: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
    reason: fc.constantFrom("CrashLoopBackOff", "OOMKilled"),
    // Mostly within the hour (so budgets fill and fold), sometimes long enough for digests and a new hour.
    gapMs: fc.oneof(
      { arbitrary: fc.integer({ min: 0, max: MIN }), weight: 4 },
      { arbitrary: fc.integer({ min: 0, max: 40 * MIN }), weight: 1 },
    ),
  });
  test("any messages, any stop point: the same admissions, folds and overflow digests", () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 4, maxLength: 60, size: "large" }),
        fc.nat(),
        fc.integer({ min: 1, max: 3 }),
        (steps, cut, limit) => {
          const limits = new Map([
            ["slack", limit],
            ["webhook", limit + 1],
          ]);
          const decide = (budgets: Budgets, from: number, to: number, at: { now: number }, out: unknown[]) => {
            for (const s of steps.slice(from, to)) {
              at.now += s.gapMs;
              const m = message(s.incident, s.action, {
                reason: s.reason,
                ...(s.page ? { mode: "page" as const } : {}),
              });
              out.push(budgets.admit(s.provider, m, at.now));
              out.push(budgets.due(at.now).map((o) => [o.provider, o.since, [...o.counts], o.incidents]));
            }
          };
          const whole: unknown[] = [];
          decide(createBudgets(limits), 0, steps.length, { now: 0 }, whole);
          const split: unknown[] = [];
          const at = { now: 0 };
          const first = createBudgets(limits);
          const stop = steps.length === 0 ? 0 : cut % (steps.length + 1);
          decide(first, 0, stop, at, split);
          const kept = ["slack", "webhook"].flatMap((p) => first.snapshot(p, at.now) ?? []);
          // Through JSON, as the state file keeps it.
          const next = createBudgets(limits);
          next.restore(JSON.parse(JSON.stringify(kept)) as BudgetRecord[]);
          decide(next, stop, steps.length, at, split);
          expect(split).toEqual(whole);
        },
      ),
      { numRuns: 300 },
    );
  });
});
