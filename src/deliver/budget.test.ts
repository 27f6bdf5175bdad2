import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { createBudgets } from "./budget.ts";

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
