import type { Incident } from "../model/incident.ts";
import type { InventoryView } from "../model/inventory.ts";
import { type ObjectRef, refKey } from "../model/object-ref.ts";
import type { BaselineContext } from "../model/baseline.ts";
import type { Held } from "./hold.ts";
import { type LifecycleState, type LifecycleStep, stepLifecycle } from "./lifecycle.ts";
import { type Recovery, recoveryOf } from "./recovery.ts";

/** What the step stage reads: the state, the pass's time (epoch ms), the cluster name, the baseline. */
export interface StepContext extends BaselineContext {
  readonly inventory: InventoryView;
  readonly state: LifecycleState;
  readonly now: number;
  readonly cluster: string;
}

/** The lifecycle's step, and how each incident's recovery reads now (the resolve's `Now:` line uses it). */
export interface Stepped {
  readonly step: LifecycleStep;
  recovery(incident: Incident): Recovery;
}

/**
 * The step stage of the pass (spec 3.1): the lifecycle compares the drafts with the open incidents and
 * decides. An incident resolves once its root and what it named are back; an object failing in another of
 * this pass's incidents is not missing from its recovery. Pure.
 */
export function step(held: Held, ctx: StepContext): Stepped {
  const { inventory } = ctx;
  const failing = new Map<string, string>();
  for (const d of held.drafts) for (const f of d.findings) failing.set(refKey(f.object), refKey(d.root));
  const recovery = (incident: Incident) =>
    recoveryOf(incident, inventory, (o: ObjectRef) => (failing.get(refKey(o)) ?? incident.id) !== incident.id);
  const stepped = stepLifecycle(ctx.state, held.drafts, ctx.now, ctx.cluster, {
    ...(ctx.baseline ? { baseline: true } : {}),
    ...(ctx.failingAtSync ? { failingAtSync: ctx.failingAtSync } : {}),
    recovery,
    absorbed: held.absorbed,
  });
  return { step: stepped, recovery };
}
