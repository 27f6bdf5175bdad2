/**
 * What the baseline pass sums up (spec 1.7: "problems already present at startup"), for the stages that treat
 * the first pass after startup apart: on that pass every failure is present at startup — unless this process
 * watched the cluster from `watchedSince` before it began to decide (a warm standby taking over, issue 53): then
 * only a failure that began before that is, and what began while it watched is news, told as the leader before
 * it would have told it (after its hold, with its log), whichever replica wins the Lease.
 */
export interface BaselineContext {
  /** The first pass after this work began (spec 1.7). */
  readonly baseline?: boolean;
  /** Epoch ms since when this process has watched the cluster; absent for a cold start. */
  readonly watchedSince?: number;
}

/** Whether a failure with onset `since` (epoch ms) is one the baseline pass sums up. Pure. */
export function presentAtStart(since: number, ctx: BaselineContext): boolean {
  return ctx.baseline === true && (ctx.watchedSince === undefined || since < ctx.watchedSince);
}
