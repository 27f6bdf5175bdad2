import type { Finding } from "../model/finding.ts";
import { type LifecycleState, nextReminderAt } from "./lifecycle.ts";

/**
 * The earliest future wake-up of a pass (epoch ms): a finding's recheck or opening time, the digest's due
 * time, the next 'still open' reminder — so holds, the digest and reminders go out on time in a quiet
 * cluster. One loop: a cluster can have tens of thousands of findings. Undefined when nothing is due later.
 */
export function nextWakeAt(findings: readonly Finding[], state: LifecycleState, now: number): number | undefined {
  let next: number | undefined;
  const consider = (t: number | undefined) => {
    if (t !== undefined && t > now && (next === undefined || t < next)) next = t;
  };
  for (const f of findings) {
    consider(f.recheckAt);
    consider(f.opensAt);
  }
  consider(state.digest.dueAt);
  consider(nextReminderAt(state));
  return next;
}
