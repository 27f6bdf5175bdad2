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

  // Issue 29.2: two unrelated crash loops were one incident because both printed a line every crash prints.
  test("lines every crash prints tie nothing together, however long: exit statuses, stack headers, common signatures", () => {
    for (const generic of [
      "Error: the process exited with status 1",
      "error: the process exited with status 137",
      "command terminated with non-zero exit code: Error executing in Docker Container: 1",
      "Traceback (most recent call last):",
      "goroutine 1 [running]:",
      'Exception in thread "main" java.lang.RuntimeException',
      "panic: runtime error: invalid memory address or nil pointer dereference",
      "Segmentation fault (core dumped)",
      "java.lang.OutOfMemoryError: Java heap space",
      "UnhandledPromiseRejection: unhandled promise rejection",
    ])
      expect(normalizeErrorLine(generic), generic).toBeUndefined();
  });

  test("a line naming what failed still ties workloads together", () => {
    expect(normalizeErrorLine('FATAL: password authentication failed for user "orders"')).toBe(
      'fatal: password authentication failed for user "orders"',
    );
    expect(normalizeErrorLine("Error: getaddrinfo ENOTFOUND payments.internal.example")).toBeDefined();
  });

  test("the merged root is shown as a line as written, never with the normalized form's tokens", () => {
    const line = "2026-11-22T08:01:02Z FATAL: license 3fa85f64-5717-4562-b3fc-2c963f66afa6 for orders-api expired";
    const [merged] = foldSharedErrors([
      draft("cart", crash("cart-1", line)),
      draft("checkout", crash("checkout-1", line.replace("08:01", "09:15"))),
    ]);
    expect(merged!.root).toMatchObject({ kind: "Error", name: "# fatal: license # for orders-api expired" });
    expect(merged!.root.label).toBe(`error "${line}"`);
    expect(merged!.root.label).not.toContain("#");
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
