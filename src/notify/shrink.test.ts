import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Message } from "../model/message.ts";
import { message } from "../testing/messages.ts";
import { SHRINK_LEVELS, shrinkMessage, splitMessage } from "./shrink.ts";

const size = (m: Message) => Buffer.byteLength(JSON.stringify(m), "utf8");

/** A roll-up of `covers` problems with `findings` findings of `evidence` characters each. */
function rollUp(covers: number, findings: number, evidence: number, lineLength: number): Message {
  const ids = Array.from({ length: covers }, (_, i) => `Namespace//team-${i}`);
  const lines = ids.map((id) => `• ${id}: outage ${"x".repeat(lineLength)}`);
  const text = [`🟠 ${covers} new problems [prod]`, ...lines].join("\n");
  return message("roll-up@1", "announce", {
    text,
    markdown: text,
    covers: ids,
    delivery: "roll-up",
    findings: Array.from({ length: findings }, (_, i) => ({
      reason: "CrashLoopBackOff",
      object: { kind: "Pod", namespace: `team-${i}`, name: `api-${i}` },
      tier: "medium" as const,
      summary: `pod team-${i}/api-${i} is crash-looping`,
      evidence: [{ label: "last output", value: "y".repeat(evidence) }],
    })),
  });
}

const anyRollUp = fc
  .tuple(fc.nat({ max: 3_000 }), fc.nat({ max: 300 }), fc.nat({ max: 3_000 }), fc.nat({ max: 200 }))
  .map(([c, f, e, l]) => rollUp(c, f, e, l));

describe("shortening a message to fit a receiver (issue 30)", () => {
  test("a summary's per-problem list is kept while its findings are, and goes with them; covers keeps every id", () => {
    const ids = ["Namespace//team-0", "Namespace//team-1"];
    const m = {
      ...rollUp(2, 2, 10, 10),
      problems: ids.map((incidentId) => ({
        incidentId,
        namespaces: [],
        tier: "high" as const,
        reasons: ["X"],
        owners: [],
      })),
    };
    expect(shrinkMessage(m, 3)!.problems?.map((p) => p.incidentId)).toEqual(ids);
    expect(shrinkMessage(m, 4)!.problems).toBeUndefined();
    expect(shrinkMessage(m, 4)!.covers).toEqual(ids);
  });

  test("every level keeps the headline, the emoji and every id the message covers, and is never larger than the one before", () => {
    fc.assert(
      fc.property(anyRollUp, (m) => {
        let before = size(m);
        for (let level = 1; level <= SHRINK_LEVELS; level++) {
          const s = shrinkMessage(m, level)!;
          // The headline, cut only when it alone is over the level's budget.
          expect(m.text.split("\n")[0]!.startsWith(s.text.split("\n")[0]!.replace(/…$/, ""))).toBe(true);
          expect(s.text.startsWith("🟠")).toBe(true);
          expect(s.covers).toEqual(m.covers);
          expect(size(s)).toBeLessThanOrEqual(before);
          before = size(s);
        }
        expect(shrinkMessage(m, SHRINK_LEVELS + 1)).toBeUndefined();
      }),
      { numRuns: 60 },
    );
  });

  test("a cut keeps what changed and who is hurt right after the headline (issue 32), wherever they were", () => {
    fc.assert(
      fc.property(fc.nat({ max: 200 }), fc.nat({ max: 200 }), (before, after) => {
        const filler = (n: number, tag: string) =>
          Array.from({ length: n }, (_, i) => `• ${tag} line ${i} ${"z".repeat(40)}`);
        const text = [
          "🟠 deployment shop/cart: ImagePullBackOff in 3 pods [prod]",
          ...filler(before, "a"),
          "Changed: 12 min before it began, helm rolled out deployment shop/cart: revision 4 → 5",
          ...filler(after, "b"),
        ].join("\n");
        const m = message("Deployment/shop/cart", "announce", { text, markdown: text });
        for (let level = 1; level < SHRINK_LEVELS; level++) {
          const shortened = shrinkMessage(m, level)!.text;
          // Nothing cut: the text is as it was; anything cut: the change comes right after the headline.
          if (shortened === text) continue;
          const lines = shortened.split("\n");
          expect(lines[0]).toBe("🟠 deployment shop/cart: ImagePullBackOff in 3 pods [prod]");
          expect(lines[1]).toStartWith("Changed: 12 min before it began");
        }
        expect(shrinkMessage(m, SHRINK_LEVELS - 1)!.text).toContain("Changed: 12 min before it began");
      }),
    );
  });

  test("a shortened message says so and counts the findings it left out", () => {
    const s = shrinkMessage(rollUp(40, 30, 100, 10), 3)!;
    expect(s.findings).toHaveLength(5);
    expect(s.findings.every((f) => f.evidence.length === 0)).toBe(true);
    expect(s.text).toEndWith("(shortened to fit the receiver's size limit; 25 more findings not shown)");
  });

  test("splitting halves what a roll-up covers: together the parts name every id exactly once, each part by its own id", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 5_000 }), (covers) => {
        const m = rollUp(covers, 3, 10, 5);
        const [a, b] = splitMessage(m)!;
        expect([...a.covers!, ...b.covers!]).toEqual([...m.covers!]);
        expect([a.id, b.id]).toEqual([`${m.id}~1`, `${m.id}~2`]);
        for (const part of [a, b]) for (const id of part.covers!) expect(part.text).toContain(`• ${id}`);
      }),
    );
    expect(splitMessage(rollUp(1, 1, 1, 1))).toBeUndefined();
  });
});
