import type { Impact } from "../model/impact.ts";
import type { Incident } from "../model/incident.ts";
import type { InventoryView } from "../model/inventory.ts";
import { changeFinder, type RememberedChanges } from "./changes.ts";
import type { LifecycleStep } from "./lifecycle.ts";
import { ownerOf } from "./owner.ts";

/**
 * The annotate stage of the pass (spec 2.4, 2.6; issue 32): each decision's incident gets its owner (from
 * `mon.io/owner` on the root, its owner chain or namespace) and the owners of all its findings, which routes
 * match — a lost node's pods belong to several teams — and, on announcements and updates, what changed before
 * it began (incident/changes.ts; `deletions` remembers the ConfigMaps and Secrets deleted) and who it hurts. Read only for what is told: walking owner chains for every open
 * incident on every pass would cost more than the pass itself. Pure.
 */
export function annotate(
  step: LifecycleStep,
  ctx: {
    readonly inventory: InventoryView;
    readonly deletions?: RememberedChanges;
    /** Who an incident hurts (detect/impact.ts), passed in by the pipeline. */
    readonly impact?: (incident: Incident) => Impact | undefined;
  },
): LifecycleStep {
  const { inventory } = ctx;
  const changed = changeFinder(inventory, ctx.deletions);
  return {
    ...step,
    decisions: step.decisions.map((d) => {
      const owner = ownerOf(d.incident.root, inventory);
      const owners = new Set(owner ? [owner] : []);
      for (const f of d.incident.findings) {
        const own = ownerOf(f.object, inventory);
        if (own) owners.add(own);
      }
      // What changed before it began is told with the announcement and its updates, not with the resolve.
      const told = d.action !== "resolve";
      const change = told ? changed(d.incident) : undefined;
      const impact = told ? ctx.impact?.(d.incident) : undefined;
      if (!owners.size && !change && !impact) return d;
      return {
        ...d,
        incident: {
          ...d.incident,
          ...(owner ? { owner } : {}),
          ...(owners.size ? { owners: [...owners] } : {}),
          ...(change ? { changed: change } : {}),
          ...(impact ? { impact } : {}),
        },
      };
    }),
  };
}
