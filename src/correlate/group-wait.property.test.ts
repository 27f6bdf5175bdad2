import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Finding } from "../model/finding.ts";
import type { Incident, IncidentDraft } from "../model/incident.ts";
import { refKey } from "../model/object-ref.ts";
import { inventoryOf, pod, workload } from "../testing/inventory.ts";
import { correlate } from "./correlate.ts";
import { defer } from "./defer.ts";

const SHARED = 'FATAL: password authentication failed for user "sync"';
const OTHER = "Error: getaddrinfo ENOTFOUND payments.internal.example";
const T0 = Date.parse("2026-12-01T10:00:00Z");
const PASS_MS = 1_000;

/** One crash-looping workload of the model: from which pass it is due (its third restart), how long its log takes. */
interface Crashing {
  readonly name: string;
  readonly line: string;
  readonly duePass: number;
  readonly readPasses: number;
}

/** A crash loop of `w`'s one pod at pass `p`: held (fewer than 3 restarts) before its due pass, with its log once read. */
const crash = (w: Crashing, p: number, log: boolean): Finding => ({
  key: `CrashLoopBackOff/Pod/shop/${w.name}-1`,
  reason: "CrashLoopBackOff",
  object: { kind: "Pod", namespace: "shop", name: `${w.name}-1` },
  tier: "medium",
  summary: `container app of pod ${w.name}-1 is crash-looping`,
  evidence: [{ label: "exit code", value: "1" }, ...(log ? [{ label: "log", value: w.line }] : [])],
  since: T0,
  holdMs: p >= w.duePass ? 0 : 180_000,
  ...(p >= w.duePass ? {} : { opensAt: T0 + 180_000 }),
});

/**
 * What the passes tell while the workloads crash, each due at its own pass and each log answering its own number
 * of passes after it was asked for (defer → correlate, as the pass runs them; the pass loop asks for what a pass
 * leaves awaiting its log). Returns each incident as first told, and the pass it was told in.
 */
function tell(workloads: readonly Crashing[], passes = 40) {
  const owners = workloads.map((w) => workload("shop", w.name));
  // Most of the namespace is healthy: this is no namespace's outage.
  const healthy = workloads.flatMap((w) => [workload("shop", `${w.name}-api`), workload("shop", `${w.name}-web`)]);
  const inventory = inventoryOf(
    ...[...owners, ...healthy].flatMap((w) => [w.deployment, w.replicaSet]),
    ...workloads.map((w, i) => pod("shop", `${w.name}-1`, { owner: owners[i]!.replicaSet })),
  );
  const byKey = new Map(workloads.map((w) => [`CrashLoopBackOff/Pod/shop/${w.name}-1`, w]));
  const asked = new Map<string, number>();
  const incidents = new Map<string, Incident>();
  const told: { draft: IncidentDraft; pass: number }[] = [];
  for (let p = 0; p < passes; p++) {
    const now = T0 + p * PASS_MS;
    const read = (f: Finding) => asked.has(f.key) && p >= asked.get(f.key)! + byKey.get(f.key)!.readPasses;
    const evidence = {
      pending: (f: Finding) => !read(f),
      attach: (f: Finding) => crash(byKey.get(f.key)!, p, true),
    };
    const findings = workloads.map((w) => crash(w, p, false));
    const deferred = defer(findings, { inventory, now, incidents, evidence });
    for (const d of correlate(deferred.due, { inventory, incidents, waits: deferred.waits })) {
      const id = refKey(d.root);
      const open = incidents.get(id);
      const all = [
        ...(open?.findings ?? []),
        ...d.findings.filter((f) => !open?.findings.some((o) => o.key === f.key)),
      ];
      incidents.set(id, {
        id,
        root: d.root,
        rootReason: d.rootReason,
        findings: all,
        announcedAt: now,
      } as unknown as Incident);
      if (!open) told.push({ draft: d, pass: p });
    }
    for (const f of deferred.awaitingEvidence) if (!asked.has(f.key)) asked.set(f.key, p);
  }
  return told;
}

describe("a group wait: workloads failing with one error are told once, whichever opens or is read first", () => {
  test("any number of workloads sharing a line, beside others that do not, due and read in any order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ duePass: fc.integer({ min: 0, max: 12 }), readPasses: fc.integer({ min: 0, max: 4 }) }), {
          minLength: 2,
          maxLength: 5,
        }),
        fc.array(fc.record({ duePass: fc.integer({ min: 0, max: 12 }), readPasses: fc.integer({ min: 0, max: 4 }) }), {
          maxLength: 3,
        }),
        (shared, alone) => {
          const workloads: Crashing[] = [
            ...shared.map((t, i) => ({ ...t, name: `sync-${"abcde"[i]}`, line: SHARED })),
            ...alone.map((t, i) => {
              const name = `report-${["alpha", "bravo", "charlie"][i]}`;
              return { ...t, name, line: OTHER.replace("payments", name) };
            }),
          ];
          const told = tell(workloads);
          // One incident for the shared line, naming every workload that fails with it when first told.
          const errors = told.filter((t) => t.draft.root.kind === "Error");
          expect(errors).toHaveLength(1);
          expect(errors[0]!.draft.findings.map((f) => f.object.name).sort()).toEqual(
            workloads
              .filter((w) => w.line === SHARED)
              .map((w) => `${w.name}-1`)
              .sort(),
          );
          // Told without waiting past the reads: the first due one's pass, plus the slowest log, plus a pass.
          const first = Math.min(...shared.map((t) => t.duePass));
          expect(errors[0]!.pass).toBeLessThanOrEqual(first + 2 * Math.max(...workloads.map((w) => w.readPasses)) + 2);
          // Each other workload is told as itself.
          expect(
            told
              .filter((t) => t.draft.root.kind === "Deployment")
              .map((t) => t.draft.root.name)
              .sort(),
          ).toEqual(workloads.filter((w) => w.line !== SHARED).map((w) => w.name));
        },
      ),
      { numRuns: 300 },
    );
  });

  test("a workload whose log says nothing shared waits for no one", () => {
    const told = tell([
      { name: "quiet", line: "exit status 1", duePass: 0, readPasses: 0 },
      { name: "slow", line: SHARED, duePass: 30, readPasses: 0 },
    ]);
    expect(told.map((t) => [t.draft.root.name, t.pass])).toEqual([
      ["quiet", 1],
      ["slow", 31],
    ]);
  });
});
