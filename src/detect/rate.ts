import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";
import { opensAtWithGrace } from "./grace.ts";
import { overrideSeverity, type SeverityOverrides } from "./overrides.ts";

/** What the rate stage reads: the Inventory, the pass's time (epoch ms) and the severity overrides (Pro). */
export interface RateContext {
  readonly inventory: InventoryView;
  readonly now: number;
  readonly severity?: SeverityOverrides;
}

/** Rated findings, and how many young-node grace holds and the latest time (epoch ms) one of them opens. */
export interface Rated {
  readonly findings: readonly Finding[];
  readonly inGrace: { readonly count: number; readonly until: number };
}

/**
 * The rate stage of the pass: severity overrides (spec 3.2, Pro) replace a finding's tier before anything is
 * decided on it, then young-node grace (spec 1.8) moves its opening time — it is then a wake-up like any hold,
 * and visible (`inGrace`). Pure.
 */
export function rate(findings: readonly Finding[], ctx: RateContext): Rated {
  const { inventory, now, severity } = ctx;
  const rated = severity ? findings.map((f) => overrideSeverity(f, ownerKindOf(f, inventory), severity)) : findings;
  const failingNodes = new Set(rated.filter((f) => f.object.kind === "Node").map((f) => f.object.name));
  const inGrace = { count: 0, until: 0 };
  const graced = rated.map((f) => {
    const opensAt = opensAtWithGrace(f, inventory, failingNodes);
    if (opensAt === f.opensAt) return f;
    if (opensAt !== undefined && opensAt > now) {
      inGrace.count++;
      inGrace.until = Math.max(inGrace.until, opensAt);
    }
    return { ...f, opensAt };
  });
  return { findings: graced, inGrace };
}

/** The kind at the top of a finding's owner chain (a Pod's Deployment), or the object's own kind. */
function ownerKindOf(f: Finding, inventory: InventoryView): string {
  const found = inventory.get(f.object.kind, f.object.namespace, f.object.name);
  const top = found ? inventory.ownerChain(found).at(-1) : undefined;
  return top ? String(top.kind) : f.object.kind;
}
