import { describe, expect, test } from "bun:test";
import { conversationLines, threadsOf } from "./conversation.ts";

describe("the judged conversation", () => {
  test("a roll-up announces each problem it covers with that problem's reason, from its next message or, still open, from the roll-up's own list", () => {
    const lines = conversationLines(
      threadsOf([
        {
          t: 30,
          action: "announce",
          incidentId: "roll-up@1",
          reason: "RollUp",
          text: "🟠 2 new problems",
          delivery: "roll-up",
          covers: ["StatefulSet/a/ledger", "Deployment/b/api"],
          coverReasons: { "StatefulSet/a/ledger": "OOMKilled", "Deployment/b/api": "CrashLoopBackOff" },
        },
        { t: 90, action: "resolve", incidentId: "Deployment/b/api", reason: "ImagePullBackOff", text: "✅" },
      ]),
    );
    expect(lines).toEqual([
      "Deployment/b/api: announce ImagePullBackOff, resolve ImagePullBackOff",
      "StatefulSet/a/ledger: announce OOMKilled",
    ]);
  });
});
