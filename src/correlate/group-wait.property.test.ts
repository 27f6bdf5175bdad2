import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Finding } from "../model/finding.ts";
import type { Incident, IncidentDraft } from "../model/incident.ts";
import { refKey } from "../model/object-ref.ts";
import { inventoryOf, pod, workload } from "../testing/inventory.ts";
import { correlate } from "./correlate.ts";

const SHARED = 'FATAL: password authentication failed for user "sync"';
const OTHER = "Error: getaddrinfo ENOTFOUND payments.internal.example";

/** A crash loop of `name`'s one pod; with `log`, its container's log as read. */
const crash = (name: string, log?: string): Finding => ({
  key: `CrashLoopBackOff/Pod/shop/${name}-1`,
  reason: "CrashLoopBackOff",
  object: { kind: "Pod", namespace: "shop", name: `${name}-1` },
  tier: "medium",
  summary: `container app of pod ${name}-1 is crash-looping`,
  evidence: [{ label: "exit code", value: "1" }, ...(log ? [{ label: "log", value: log }] : [])],
  since: 0,
});

/** What passes tell while the logs of `names` are read and answer in `order`, a pass after each answer. */
function tell(names: readonly string[], lineOf: (name: string) => string, order: readonly string[]) {
  const workloads = names.map((n) => workload("shop", n));
  // Most of the namespace is healthy: this is no namespace's outage.
  const healthy = names.flatMap((n) => [workload("shop", `${n}-api`), workload("shop", `${n}-web`)]);
  const inventory = inventoryOf(
    ...[...workloads, ...healthy].flatMap((w) => [w.deployment, w.replicaSet]),
    ...names.map((n, i) => pod("shop", `${n}-1`, { owner: workloads[i]!.replicaSet })),
  );
  const incidents = new Map<string, Incident>();
  const told: IncidentDraft[] = [];
  const read = new Set<string>();
  const pass = () => {
    const due = names.map((n) => crash(n, read.has(n) ? lineOf(n) : undefined));
    const waits = (f: Finding) => !f.evidence.some((e) => e.label === "log");
    for (const d of correlate(due, { inventory, incidents, waits })) {
      const id = refKey(d.root);
      if (incidents.has(id)) continue;
      told.push(d);
      incidents.set(id, { id, root: d.root, rootReason: d.rootReason, findings: d.findings } as unknown as Incident);
    }
  };
  pass();
  for (const name of order) {
    read.add(name);
    pass();
  }
  return told;
}

describe("a group wait: workloads failing with one error are told once, whichever log is read first", () => {
  test("any number of workloads sharing a line, beside others that do not, in any order of their logs", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 5 }),
        fc.integer({ min: 0, max: 3 }),
        fc.infiniteStream(fc.nat()),
        (sharing, alone, draws) => {
          const names = [
            ...Array.from({ length: sharing }, (_, i) => `sync-${i}`),
            ...["alpha", "bravo", "charlie"].slice(0, alone).map((x) => `report-${x}`),
          ];
          const pool = [...names];
          const order: string[] = [];
          for (const draw of draws.take(names.length)) order.push(...pool.splice(draw % pool.length, 1));
          const told = tell(names, (n) => (n.startsWith("sync") ? SHARED : OTHER.replace("payments", n)), order);
          // One incident for the shared line, naming every workload that fails with it; nothing else of them.
          const shared = told.filter((d) => d.root.kind === "Error");
          expect(shared).toHaveLength(1);
          expect(shared[0]!.findings.map((f) => f.object.name).sort()).toEqual(
            names.filter((n) => n.startsWith("sync")).map((n) => `${n}-1`),
          );
          // Each other workload is told as itself.
          expect(told.filter((d) => d.root.kind === "Deployment").map((d) => d.root.name).sort()).toEqual(
            names.filter((n) => n.startsWith("report")),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  test("a workload whose log says nothing shared waits for no one", () => {
    const told = tell(["quiet", "slow"], () => "exit status 1", ["quiet"]);
    expect(told.map((d) => d.root.name)).toEqual(["quiet"]);
  });
});
