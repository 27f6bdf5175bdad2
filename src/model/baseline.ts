import { type ObjectRef, refKey } from "./object-ref.ts";

/**
 * What the baseline pass sums up (spec 1.7: "problems already present at startup"), for the stages that treat
 * the first pass after startup apart: on that pass every failure is present at startup — unless this process
 * watched the cluster before it began to decide (a warm standby taking over, issue 53): then only a failure of
 * an object that was failing when its caches first synced is, and what began while it watched is news, told
 * as the leader before it would have told it (after its hold, with its log), whichever replica wins the Lease.
 * What was failing is read from the objects, not from a finding's `since`: a crash loop's is its pod's start.
 */
export interface BaselineContext {
  /** The first pass after this work began (spec 1.7). */
  readonly baseline?: boolean;
  /**
   * On a warm takeover: the objects (`Kind/namespace/name`) with a finding when this process's caches first
   * synced. Absent for a cold start.
   */
  readonly failingAtSync?: ReadonlySet<string>;
}

/** Whether a failure of `objects` (a finding's object, or an incident's findings' objects) is summed up. Pure. */
export function presentAtStart(objects: readonly ObjectRef[], ctx: BaselineContext): boolean {
  if (ctx.baseline !== true) return false;
  const atSync = ctx.failingAtSync;
  return atSync === undefined || objects.some((o) => atSync.has(refKey(o)));
}
