import { describe, expect, test } from "bun:test";
import type { Finding } from "../model/finding.ts";
import { inventoryOf } from "../testing/inventory.ts";
import { ackOf, ackPresentAtOpen, stepAck } from "./ack.ts";

const root = { kind: "Deployment", namespace: "shop", name: "api" };
const podRef = { kind: "Pod", namespace: "shop", name: "api-1" };
const finding: Finding = {
  key: "k",
  reason: "CrashLoopBackOff",
  object: podRef,
  tier: "medium",
  summary: "crash",
  evidence: [],
  since: 0,
};
const annotated = (kind: string, name: string, note: string) => ({
  kind,
  apiVersion: "v1",
  metadata: { namespace: "shop", name, annotations: { "mon.io/ack": note } },
});
const upper = (t: string) => t.replace(/hunter2/g, "[redacted]");

describe("acknowledgement (spec 3.1, Pro)", () => {
  test("found on the root first, else on a failing object; the note is redacted, one line, at most 200 bytes", () => {
    expect(ackOf(root, [finding], inventoryOf(annotated("Pod", "api-1", "on it\n  — alice")), upper)).toEqual({
      on: podRef,
      note: "on it — alice",
    });
    expect(
      ackOf(
        root,
        [finding],
        inventoryOf(annotated("Deployment", "api", "root"), annotated("Pod", "api-1", "pod")),
        upper,
      )?.on,
    ).toEqual(root);
    expect(
      ackOf(root, [finding], inventoryOf(annotated("Pod", "api-1", "password hunter2 rotated")), upper)?.note,
    ).toBe("password [redacted] rotated");
    const long = ackOf(root, [finding], inventoryOf(annotated("Pod", "api-1", "é".repeat(300))), upper)!.note;
    expect(new TextEncoder().encode(long).length).toBeLessThanOrEqual(200);
    expect(long).toEndWith("…");
    expect(ackOf(root, [finding], inventoryOf(), upper)).toBeUndefined();
  });

  test("added acknowledges, changed re-acknowledges, removed says so; present at announcement counts only once changed", () => {
    const ack = { on: podRef, note: "on it" };
    const added = stepAck({}, ack);
    expect(added.news).toEqual(['Acknowledged on Pod/api-1: "on it"']);
    expect(stepAck(added.state, ack).news).toEqual([]);
    expect(stepAck(added.state, { on: podRef, note: "fixing" }).news).toEqual(['Acknowledged on Pod/api-1: "fixing"']);
    expect(stepAck(added.state, undefined)).toEqual({ news: ["Acknowledgement removed"], state: {} });

    const atOpen = ackPresentAtOpen(ack);
    expect(atOpen.news).toBe(
      'mon.io/ack is present on Pod/api-1 ("on it"); this new incident is not acknowledged by it until it is changed or added again',
    );
    expect(stepAck(atOpen.state, ack).news).toEqual([]);
    expect(stepAck(atOpen.state, { on: podRef, note: "mine now" }).news).toEqual([
      'Acknowledged on Pod/api-1: "mine now"',
    ]);
    // Removed, then added again: that acknowledges.
    const removed = stepAck(atOpen.state, undefined);
    expect(removed).toEqual({ news: [], state: {} });
    expect(stepAck(removed.state, ack).news).toEqual(['Acknowledged on Pod/api-1: "on it"']);
  });
});
