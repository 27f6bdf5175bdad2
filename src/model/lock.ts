/**
 * What the state lock reports (spec 4.1 /health "state lock"; docs/leadership.md): the Lease, this replica's
 * identity, whether it leads, the holder seen on the Lease, the fencing term and the last renewal.
 */
export interface LockStatus {
  readonly name: string;
  readonly namespace: string;
  readonly identity: string;
  readonly leading: boolean;
  readonly holder?: string;
  /** The fencing term: the Lease's leaseTransitions when this replica acquired it. */
  readonly term?: number;
  /** Epoch ms of the last successful renewal by this replica. */
  readonly renewedAt?: number;
}
