import { describe, expect, test } from "bun:test";
import type { Finding } from "../model/finding.ts";
import type { IncidentDraft } from "../model/incident.ts";
import { foldSharedErrors, normalizeErrorLine } from "./shared-errors.ts";

const crash = (pod: string, output: string, log?: string): Finding => ({
  key: `CrashLoopBackOff/Pod/shop/${pod}`,
  reason: "CrashLoopBackOff",
  object: { kind: "Pod", namespace: "shop", name: pod },
  tier: "medium",
  summary: `container of ${pod} is crash-looping`,
  evidence: [{ label: "last output", value: output }, ...(log ? [{ label: "log", value: log }] : [])],
  since: 0,
});
const draft = (name: string, f: Finding): IncidentDraft => ({
  root: { kind: "Deployment", namespace: "shop", name },
  rootReason: f.reason,
  findings: [f],
});

describe("errors shared by several workloads (spec 1.3)", () => {
  test("the same line from different pods and times normalizes to one", () => {
    const a = normalizeErrorLine(
      "2026-11-22T08:01:02.123Z FATAL license check failed for cart-7d9f8b6c5d-x2x9z: token 3fa85f64-5717-4562-b3fc-2c963f66afa6 expired at 1732262400",
    );
    const b = normalizeErrorLine(
      "2026-11-22T09:15:44.001Z FATAL license check failed for cart-5c6b7d8e9f-abcde: token 9b2e4c1a-0000-4562-b3fc-aaaaaaaaaaaa expired at 1732266000",
    );
    expect(a).toBe(b);
    expect(a).toBe("# fatal license check failed for cart: token # expired at #");
  });

  test("lines too short to tie workloads together are not used", () => {
    expect(normalizeErrorLine("Error")).toBeUndefined();
    expect(normalizeErrorLine("exit status 1")).toBeUndefined();
    expect(normalizeErrorLine("panic: 0xc000123456 12345")).toBeUndefined();
  });

  test("workloads failing with one error become one incident rooted at it; others keep their root", () => {
    const line = "FATAL: remaining connection slots are reserved for non-replication superuser connections";
    const out = foldSharedErrors([
      draft("cart", crash("cart-1", "exit 1", `starting ⏎ ${line}`)),
      draft("checkout", crash("checkout-1", line)),
      draft("search", crash("search-1", "panic: index corrupt at segment 7")),
      { ...draft("billing", crash("billing-1", line)), root: { kind: "Node", name: "n1" } },
    ]);
    expect(out.map((d) => [d.root.kind, d.findings.length])).toEqual([
      ["Error", 2],
      ["Deployment", 1],
      ["Node", 1],
    ]);
    expect(out[0]).toMatchObject({
      root: { name: line.toLowerCase() },
      rootReason: "SharedError",
      affected: [{ name: "cart" }, { name: "checkout" }],
      folded: [
        { reason: "cascading_suppression", root: { name: "cart" } },
        { reason: "cascading_suppression", root: { name: "checkout" } },
      ],
    });
  });

  test("one workload alone with its error keeps its own incident", () => {
    const out = foldSharedErrors([
      draft("cart", crash("cart-1", "FATAL: password authentication failed for user app")),
      draft("search", crash("search-1", "panic: index corrupt at segment 7")),
    ]);
    expect(out.map((d) => d.root.name)).toEqual(["cart", "search"]);
  });
});
