import type { IncidentDraft } from "../model/incident.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { ObjectRef } from "../model/object-ref.ts";
import { redact } from "../redact/redact.ts";
import { ackOf } from "./ack.ts";
import type { LifecycleState } from "./lifecycle.ts";
import { absorbRecoveryTraffic } from "./recovery.ts";
import { type PreparedRules, suppressionOf } from "./suppress.ts";

/** What the hold stage reads: the Inventory, the pass's time (epoch ms), the state and the delivery rules. */
export interface HoldContext {
  readonly inventory: InventoryView;
  readonly now: number;
  readonly state: LifecycleState;
  readonly rules?: PreparedRules;
}

/** The drafts left, marked `held` or `ack`, and by incident id the roots each recovering incident absorbed. */
export interface Held {
  readonly drafts: readonly IncidentDraft[];
  readonly absorbed: ReadonlyMap<string, readonly ObjectRef[]>;
}

/**
 * The hold stage of the pass (spec 1.4, 2.2, 2.7): what a recovering incident told, and symptoms on what it
 * named, are its recovery, not new problems (absorbed); a draft is `held` when every finding in it is out of
 * scope, silenced or under maintenance — silencing a symptom never hides a root cause that still affects
 * others; `mon.io/ack` marks it acknowledged when the rules acknowledge (Pro). Pure.
 */
export function hold(drafts: readonly IncidentDraft[], ctx: HoldContext): Held {
  const { inventory, rules, now } = ctx;
  const traffic = absorbRecoveryTraffic(drafts, ctx.state.incidents.values(), inventory);
  const marked = traffic.drafts.map((d) => {
    const held = rules !== undefined && d.findings.every((f) => suppressionOf(f, inventory, rules, now) !== undefined);
    const ack = rules?.acknowledge ? ackOf(d.root, d.findings, inventory, (text) => redact(text).text) : undefined;
    return held || ack ? { ...d, ...(held ? { held } : {}), ...(ack ? { ack } : {}) } : d;
  });
  return { drafts: marked, absorbed: traffic.absorbed };
}
