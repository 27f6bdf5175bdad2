import type { Finding } from "../model/finding.ts";
import type { InventoryView, UsageView } from "../model/inventory.ts";
import { refKey } from "../model/object-ref.ts";
import { detectCertificates } from "./certificates.ts";
import { detectConfigRefs } from "./config-refs.ts";
import { detectControlPlane } from "./control-plane.ts";
import { detectEvents } from "./events.ts";
import { type Detector, detectIsolated, type Quarantine, type Quarantined } from "./isolate.ts";
import { detectNetworkPolicies } from "./network-policy.ts";
import { detectNetwork } from "./network.ts";
import { detectNodes } from "./nodes.ts";
import { detectPods } from "./pods/family.ts";
import { detectProbes } from "./probes.ts";
import { detectStorage } from "./storage.ts";
import { detectWorkloads } from "./workloads.ts";

/** The detector families of a pass, by name (the names of `failedDetectors` and of the quarantine). */
export const DETECTORS: readonly (readonly [string, Detector])[] = [
  ["nodes", detectNodes],
  ["pods", detectPods],
  ["workloads", detectWorkloads],
  ["storage", detectStorage],
  ["config", detectConfigRefs],
  ["certificates", detectCertificates],
  ["events", detectEvents],
  ["network", detectNetwork],
  ["controlPlane", detectControlPlane],
  ["probes", detectProbes],
  ["networkPolicies", detectNetworkPolicies],
];

/** What the detect stage needs besides the Inventory: the pass's time (epoch ms), usage, quarantine, families. */
export interface DetectContext {
  readonly inventory: InventoryView;
  readonly now: number;
  readonly usage: UsageView;
  /** Objects detectors threw on, kept by the pass loop between passes. */
  readonly quarantine: Quarantine;
  /** Families replaced by name with their incremental forms (detect/families.ts), whose results are equal. */
  readonly detectors?: Readonly<Partial<Record<string, Detector>>>;
}

/** The detect stage's output: every finding, the families that threw, the objects newly set aside. */
export interface Detected {
  readonly findings: readonly Finding[];
  readonly failedDetectors: readonly string[];
  readonly quarantined: readonly Quarantined[];
}

/**
 * The detect stage of the pass (ARCHITECTURE.md "The pass"): every family runs isolated (detect/isolate.ts),
 * so an object one throws on is set aside and the family goes on; a family that still throws is named in
 * `failedDetectors`. Pure.
 */
export function detect(ctx: DetectContext): Detected {
  const findings: Finding[] = [];
  const failedDetectors: string[] = [];
  const quarantined: Quarantined[] = [];
  for (const [name, full] of DETECTORS) {
    const family = ctx.detectors?.[name] ?? full;
    const result = detectIsolated(name, family, ctx.inventory, ctx.now, ctx.usage, ctx.quarantine);
    findings.push(...result.findings);
    quarantined.push(...result.added);
    if (result.failed !== undefined) failedDetectors.push(name);
  }
  return { findings, failedDetectors, quarantined };
}

/**
 * The objects (`Kind/namespace/name`) with a finding at `now` (epoch ms), from the Inventory alone (no usage
 * readings): what a replica saw failing when its caches first synced (model/baseline.ts). Pure.
 */
export function failingObjects(inventory: InventoryView, now: number): Set<string> {
  const { findings } = detect({ inventory, now, usage: {}, quarantine: new Map() });
  return new Set(findings.map((f) => refKey(f.object)));
}
