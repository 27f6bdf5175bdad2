import { describe, expect, test } from "bun:test";
import { forget, judgeRecurrence, remember } from "./memory.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;

describe("memory of earlier alerts (spec 1.8)", () => {
  test("told fewer than twice in a day: announce", () => {
    expect(judgeRecurrence(undefined, 0)).toEqual({ verdict: "announce" });
    expect(judgeRecurrence(remember(undefined, 0), 10 * MIN)).toEqual({ verdict: "announce" });
    // Two told, but one of them more than a day ago.
    expect(judgeRecurrence({ told: [0, 25 * HOUR] }, 26 * HOUR)).toEqual({ verdict: "announce" });
  });

  test("a third opening at steady intervals is stated once; irregular ones and later ones go to the digest", () => {
    expect(judgeRecurrence({ told: [0, 10 * MIN] }, 21 * MIN)).toEqual({ verdict: "state", everySeconds: 630 });
    expect(judgeRecurrence({ told: [0, 10 * MIN], stated: true }, 20 * MIN)).toEqual({ verdict: "digest" });
    expect(judgeRecurrence({ told: [0, 2 * MIN] }, 50 * MIN)).toEqual({ verdict: "digest" });
  });

  test("memories older than a day are forgotten", () => {
    const kept = forget(
      new Map([
        ["a", { told: [0] }],
        ["b", { told: [0, 23 * HOUR] }],
      ]),
      24 * HOUR,
    );
    expect([...kept.keys()]).toEqual(["b"]);
    expect(remember({ told: [0, 23 * HOUR], stated: true }, 24 * HOUR)).toEqual({
      told: [23 * HOUR, 24 * HOUR],
      stated: true,
    });
  });
});
