/**
 * The Lease as leader election reads and writes it (coordination.k8s.io/v1 LeaseSpec). Times are RFC 3339
 * with microseconds, as client-go writes them.
 */
export interface LeaseRecord {
  readonly holderIdentity?: string;
  readonly leaseDurationSeconds?: number;
  readonly acquireTime?: string;
  readonly renewTime?: string;
  readonly leaseTransitions?: number;
}

/** client-go's defaults (leaderelection.LeaderElectionConfig): lease 15 s, renew deadline 10 s, retry 2 s. */
export const ELECTION = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 } as const;

/** What this replica should do with the lock now. */
export type LockAction =
  | { readonly kind: "create"; readonly record: LeaseRecord }
  | { readonly kind: "update"; readonly record: LeaseRecord }
  | { readonly kind: "wait"; readonly holder: string };

/**
 * One step of client-go's tryAcquireOrRenew, pure. `observed` is the record last read and `observedAt` the
 * local monotonic time (ms) at which it was last seen to *change*: another holder's lease counts as expired
 * only when its record has not changed for its whole duration on this replica's own clock, so a replica whose
 * wall clock is skewed cannot steal a lease that is being renewed. `now` is wall time for the timestamps
 * written. A takeover or a new holder increments `leaseTransitions` — mon's fencing term. `holding`: whether this
 * process holds the Lease now. A Lease held under this replica's identity (POD_NAME, spec 9) that this process
 * does not hold was its pod's previous container's, which is gone (a pod runs one instance of a container): it is
 * taken over at once, as a new term, not renewed as if this process had held it.
 */
export function decideLock(options: {
  identity: string;
  observed: LeaseRecord | undefined;
  observedAt: number;
  monotonicNow: number;
  now: number;
  leaseDurationMs?: number;
  holding?: boolean;
}): LockAction {
  const durationMs = options.leaseDurationMs ?? ELECTION.leaseDurationMs;
  const stamp = microTime(options.now);
  const mine = (transitions: number, acquireTime: string): LeaseRecord => ({
    holderIdentity: options.identity,
    leaseDurationSeconds: Math.round(durationMs / 1000),
    acquireTime,
    renewTime: stamp,
    leaseTransitions: transitions,
  });
  const o = options.observed;
  if (!o) return { kind: "create", record: mine(0, stamp) };
  const holder = o.holderIdentity ?? "";
  if (holder === options.identity)
    return options.holding === false
      ? { kind: "update", record: mine((o.leaseTransitions ?? 0) + 1, stamp) }
      : { kind: "update", record: mine(o.leaseTransitions ?? 0, o.acquireTime ?? stamp) };
  const heldFor = (o.leaseDurationSeconds ?? durationMs / 1000) * 1000;
  const expired = holder === "" || options.monotonicNow - options.observedAt > heldFor;
  if (!expired) return { kind: "wait", holder };
  return { kind: "update", record: mine((o.leaseTransitions ?? 0) + 1, stamp) };
}

/** RFC 3339 with microseconds (metav1.MicroTime). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}
