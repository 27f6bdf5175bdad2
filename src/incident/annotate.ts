import type { InventoryView } from "../model/inventory.ts";
import type { LifecycleStep } from "./lifecycle.ts";
import { ownerOf } from "./owner.ts";

/**
 * The annotate stage of the pass (spec 2.4, 2.6): each decision's incident gets its owner (from `mon.io/owner`
 * on the root, its owner chain or namespace) and the owners of all its findings, which routes match — a lost
 * node's pods belong to several teams. Read only for what is told: walking owner chains for every open
 * incident on every pass would cost more than the pass itself. Pure.
 */
export function annotate(step: LifecycleStep, inventory: InventoryView): LifecycleStep {
  return {
    ...step,
    decisions: step.decisions.map((d) => {
      const owner = ownerOf(d.incident.root, inventory);
      const owners = new Set(owner ? [owner] : []);
      for (const f of d.incident.findings) {
        const own = ownerOf(f.object, inventory);
        if (own) owners.add(own);
      }
      return owners.size ? { ...d, incident: { ...d.incident, ...(owner ? { owner } : {}), owners: [...owners] } } : d;
    }),
  };
}
