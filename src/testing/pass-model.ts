import { correlate } from "../correlate/correlate.ts";
import { defer } from "../correlate/defer.ts";
import type { Finding } from "../model/finding.ts";
import type { Incident, IncidentDraft } from "../model/incident.ts";
import { refKey } from "../model/object-ref.ts";
import { inventoryOf, pod, workload } from "./inventory.ts";

/** The first pass's time, epoch ms. */
const T0 = Date.parse("2026-12-01T10:00:00Z");
/** Between two passes, ms. */
const PASS_MS = 1_000;

/**
 * One crash-looping pod of the model: its workload (a Deployment of the namespace `shop`), what its log says, the
 * pass from which it crash-loops (`beginPass`, held: fewer than 3 restarts), the pass from which it is due (its
 * third restart) and how many passes its log takes to answer once asked for.
 */
export interface CrashingPod {
  readonly workload: string;
  readonly pod: string;
  readonly line: string;
  readonly beginPass: number;
  readonly duePass: number;
  readonly readPasses: number;
}

/** An incident as first told: its draft and the pass it was told in. */
export interface Told {
  readonly draft: IncidentDraft;
  readonly pass: number;
}

/** A crash loop of `c` at pass `p`: held before its due pass, with its log once read. */
function crash(c: CrashingPod, p: number, log: boolean): Finding {
  return {
    key: `CrashLoopBackOff/Pod/shop/${c.pod}`,
    reason: "CrashLoopBackOff",
    object: { kind: "Pod", namespace: "shop", name: c.pod },
    tier: "medium",
    summary: `container app of pod ${c.pod} is crash-looping`,
    evidence: [{ label: "exit code", value: "1" }, ...(log ? [{ label: "log", value: c.line }] : [])],
    since: T0 + c.beginPass * PASS_MS,
    holdMs: p >= c.duePass ? 0 : 180_000,
    ...(p >= c.duePass ? {} : { opensAt: T0 + c.beginPass * PASS_MS + 180_000 }),
  };
}

/**
 * What the pure core's passes tell while the pods crash (defer → correlate, as the pass runs them; the pass loop
 * asks for the logs a pass leaves awaiting, and a told draft becomes an announced incident). Most of the namespace
 * is healthy (two more workloads for each crashing one), so no namespace's outage hides the failures. Returns each
 * incident as first told, in order. Test model of the pass (src/app/pass), without delivery.
 */
export function tellPasses(pods: readonly CrashingPod[], passes = 40): Told[] {
  const names = [...new Set(pods.map((c) => c.workload))];
  const owners = new Map(names.map((w) => [w, workload("shop", w)]));
  const healthy = names.flatMap((w) => [workload("shop", `${w}-api`), workload("shop", `${w}-web`)]);
  const inventory = inventoryOf(
    ...[...owners.values(), ...healthy].flatMap((w) => [w.deployment, w.replicaSet]),
    ...pods.map((c) => pod("shop", c.pod, { owner: owners.get(c.workload)!.replicaSet })),
  );
  const byKey = new Map(pods.map((c) => [`CrashLoopBackOff/Pod/shop/${c.pod}`, c]));
  const asked = new Map<string, number>();
  const incidents = new Map<string, Incident>();
  const told: Told[] = [];
  for (let p = 0; p < passes; p++) {
    const now = T0 + p * PASS_MS;
    const read = (f: Finding) => asked.has(f.key) && p >= asked.get(f.key)! + byKey.get(f.key)!.readPasses;
    const evidence = {
      pending: (f: Finding) => !read(f),
      attach: (f: Finding) => crash(byKey.get(f.key)!, p, true),
    };
    const findings = pods.filter((c) => p >= c.beginPass).map((c) => crash(c, p, false));
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
