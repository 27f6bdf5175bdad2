import { ACK_ANNOTATION } from "./ack.ts";
import { underMaintenance } from "./suppress.ts";
import type { Incident } from "../model/incident.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { ProHintContext } from "../model/pro-hint.ts";

/**
 * The one line naming what Pro would add for this incident, most specific first: a maintenance annotation it
 * would honour, an acknowledgement it would apply, a severity override it would use, the other providers it
 * would also tell. Undefined when Pro would add nothing. Pure.
 */
export function proHintFor(
  incident: Incident,
  inventory: InventoryView,
  ctx: ProHintContext,
  now: number,
): string | undefined {
  const held = incident.findings.find((f) => underMaintenance(f, inventory, ctx.maintenance, now));
  if (held)
    return `With Pro, the maintenance annotation on ${held.object.namespace ? `namespace ${held.object.namespace}` : held.object.name} would hold this back.`;
  const root = inventory.get(incident.root.kind, incident.root.namespace, incident.root.name);
  if (root?.metadata?.annotations?.[ACK_ANNOTATION] !== undefined)
    return `With Pro, ${ACK_ANNOTATION} on ${incident.root.kind.toLowerCase()} ${incident.root.name} would acknowledge this.`;
  if (ctx.severityReasons.has(incident.rootReason.toLowerCase()))
    return `With Pro, severityByReason would rate ${incident.rootReason} as configured.`;
  if (ctx.inactiveProviders.length) return `With Pro, this would also go to ${ctx.inactiveProviders.join(", ")}.`;
  return undefined;
}
