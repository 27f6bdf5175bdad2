import type { KubeConnection } from "../kube/connection.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { decideLock, ELECTION, type LeaseRecord, microTime } from "./decide.ts";
import { LineSplitter } from "../kube/lines.ts";
import type { Absence } from "../model/absence.ts";
import type { LockStatus } from "../model/lock.ts";

export type { LockStatus } from "../model/lock.ts";

/** A running leader election on one Lease. */
export interface Elector {
  status(): LockStatus;
  /** True while this replica holds the lock under `term` (the fencing check of every send). */
  holds(term: number): boolean;
  /**
   * Resolves with its term when this replica leads: at once while it does, else at its next acquisition (after a
   * loss too: the election goes on, issue 53).
   */
  leading(): Promise<number>;
  /** Rounds completed (read, decide, write): a test waits on it between clock steps. */
  rounds(): number;
  /** The last term this replica held (kept after a loss), undefined before it first led. */
  lastTerm(): number | undefined;
  /**
   * Whether the API server answered the election's last round: undefined when it did (any answer but a 5xx or
   * 429 counts), else since when (epoch ms, the first round of the streak) every round went unanswered, refused
   * or failed with a 5xx or 429, and the last such error.
   */
  unreachable(): Unreachable | undefined;
  /**
   * The latest streak of unanswered election rounds (as `unreachable`): from its first round (epoch ms) to the
   * first round answered again (`to`, absent while it lasts); undefined before any. What the pass reads as the
   * control plane's last absence (detect/nodes.ts: a node lost as it comes back is its catch-up, issue 53).
   */
  away(): Absence | undefined;
  /** Gives the lock up (holder cleared) so a standby takes over at once; stops the loop. */
  release(): Promise<void>;
  stop(): void;
}

/** A streak of election rounds the API server did not answer (Elector.unreachable). */
export interface Unreachable {
  /** Epoch ms of the streak's first round. */
  readonly since: number;
  readonly error: string;
}

/** A Lease request the API server answered with an error status. */
class LeaseHttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** True for what says the server is not there to answer: no answer at all, a 5xx, or 429 (overloaded). */
function unanswered(error: unknown): boolean {
  return !(error instanceof LeaseHttpError) || error.status >= 500 || error.status === 429;
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease with client-go's semantics (docs/leadership.md): every
 * retry period it reads the Lease and creates, renews or takes it over with the read resourceVersion (a
 * concurrent writer gets 409 and loses). A leader that has not renewed for the renew deadline stops leading
 * (`onLost`) before the lease itself can expire for the others, so two replicas never lead at once.
 */
export function createElector(options: {
  connection: KubeConnection;
  namespace: string;
  name: string;
  identity: string;
  clock: Clock;
  logger: Logger;
  /** The lease was lost (renew deadline passed, or another holder): stop deciding and sending at once. */
  onLost?: () => void;
  timing?: Partial<typeof ELECTION>;
}): Elector {
  const { connection, clock, logger } = options;
  const timing = { ...ELECTION, ...options.timing };
  const monotonic = () => clock.monotonic?.() ?? clock.now();
  const path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(options.namespace)}/leases`;
  let observed: { record?: LeaseRecord; rv?: string; raw?: string } = {};
  let observedAt = monotonic();
  let term: number | undefined;
  let lastTerm: number | undefined;
  let unreachable: Unreachable | undefined;
  // The last streak of unanswered rounds that ended (an ongoing one is `unreachable`).
  let lastAway: Absence | undefined;
  let renewedAt: number | undefined;
  let renewedMono: number | undefined;
  let stopped = false;
  let rounds = 0;
  let lastError: string | undefined;
  let timer: (() => void) | undefined;
  // Who waits for the next acquisition: a replica that lost the lock campaigns again (issue 53).
  const waiting: ((term: number) => void)[] = [];

  // A round's requests (and a release's) end by half the renew deadline: an API server whose requests hang (etcd
  // down) must not keep a leader that cannot renew from stepping down in time (issue 53).
  const requestDeadline = () => {
    const controller = new AbortController();
    const cancel = clock.setTimer(
      () => controller.abort(new Error(`no answer within ${Math.round(timing.renewDeadlineMs / 2000)} s`)),
      timing.renewDeadlineMs / 2,
    );
    return { signal: controller.signal, cancel };
  };
  const read = async (signal: AbortSignal): Promise<void> => {
    const response = await connection.request(`${path}/${encodeURIComponent(options.name)}`, { signal });
    if (response.status === 404) {
      if (observed.raw !== undefined) observedAt = monotonic();
      observed = {};
      return;
    }
    if (!response.ok)
      throw new LeaseHttpError(
        `reading Lease ${options.namespace}/${options.name}: HTTP ${response.status}`,
        response.status,
      );
    const lease = (await response.json()) as { metadata?: { resourceVersion?: string }; spec?: LeaseRecord };
    const raw = JSON.stringify(lease.spec ?? {});
    if (raw !== observed.raw) observedAt = monotonic();
    observed = { record: lease.spec ?? {}, rv: lease.metadata?.resourceVersion, raw };
  };
  const write = async (kind: "create" | "update", record: LeaseRecord, signal: AbortSignal): Promise<boolean> => {
    const body = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: {
        name: options.name,
        namespace: options.namespace,
        ...(kind === "update" && observed.rv ? { resourceVersion: observed.rv } : {}),
        ...ownedBy(connection, options.namespace),
      },
      spec: record,
    };
    const response = await connection.request(
      kind === "create" ? path : `${path}/${encodeURIComponent(options.name)}`,
      {
        method: kind === "create" ? "POST" : "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal,
      },
    );
    // 409: someone else wrote first (a concurrent acquire, or the holder renewed): read again next round.
    if (response.status === 409) return false;
    if (!response.ok)
      throw new LeaseHttpError(
        `writing Lease ${options.namespace}/${options.name}: HTTP ${response.status}`,
        response.status,
      );
    const lease = (await response.json()) as { metadata?: { resourceVersion?: string }; spec?: LeaseRecord };
    observed = {
      record: lease.spec ?? record,
      rv: lease.metadata?.resourceVersion,
      raw: JSON.stringify(lease.spec ?? record),
    };
    observedAt = monotonic();
    return true;
  };
  const lose = (why: string) => {
    if (term === undefined) return;
    logger.warn(`leadership lost (${why}): no more decisions or deliveries from this replica`);
    term = undefined;
    options.onLost?.();
  };
  let inRound = false;
  let again = false;
  const round = async () => {
    if (inRound) {
      again = true;
      return;
    }
    inRound = true;
    timer?.();
    const deadline = requestDeadline();
    try {
      await read(deadline.signal);
      const action = decideLock({
        identity: options.identity,
        observed: observed.record,
        observedAt,
        monotonicNow: monotonic(),
        now: clock.now(),
        leaseDurationMs: timing.leaseDurationMs,
        holding: term !== undefined,
      });
      if (action.kind === "wait") {
        if (term !== undefined) lose(`${action.holder} holds the Lease`);
      } else if (await write(action.kind, action.record, deadline.signal)) {
        renewedAt = clock.now();
        renewedMono = monotonic();
        if (term === undefined) {
          unwatch();
          term = action.record.leaseTransitions ?? 0;
          lastTerm = term;
          logger.info(`leadership acquired: Lease ${options.namespace}/${options.name}, term ${term}`);
          for (const resolve of waiting.splice(0)) resolve(term);
        }
      }
      lastError = undefined;
      if (unreachable) lastAway = { from: unreachable.since, to: clock.now() };
      unreachable = undefined;
    } catch (error) {
      // Said once per different failure, not every retry period.
      const message = (error as Error).message;
      if (unanswered(error)) unreachable = { since: unreachable?.since ?? clock.now(), error: message };
      else {
        if (unreachable) lastAway = { from: unreachable.since, to: clock.now() };
        unreachable = undefined;
      }
      if (message !== lastError)
        logger.warn(`leader election: ${message}; retrying every ${Math.round(timing.retryPeriodMs / 1000)} s`);
      lastError = message;
    }
    deadline.cancel();
    // A leader that could not renew within the renew deadline steps down before its lease can expire.
    if (term !== undefined && renewedMono !== undefined && monotonic() - renewedMono > timing.renewDeadlineMs)
      lose("could not renew within the renew deadline");
    rounds += 1;
    inRound = false;
    if (stopped) return;
    if (again) {
      again = false;
      void round();
      return;
    }
    timer = clock.setTimer(() => void round(), timing.retryPeriodMs);
    if (term === undefined) void watchRelease();
  };

  // A standby also watches the Lease: a release (holder cleared) or a deletion starts a round at once, so a
  // SIGTERM hand-over takes one round trip instead of up to a retry period. Polling stays the source of truth.
  let watching: AbortController | undefined;
  const watchRelease = async () => {
    if (watching || stopped || term !== undefined) return;
    const controller = new AbortController();
    watching = controller;
    try {
      const query = `fieldSelector=${encodeURIComponent(`metadata.name=${options.name}`)}&watch=1${
        observed.rv ? `&resourceVersion=${encodeURIComponent(observed.rv)}` : ""
      }&timeoutSeconds=300`;
      const response = await connection.request(`${path}?${query}`, { signal: controller.signal, stream: true });
      if (!response.ok || !response.body) return;
      const reader = response.body.getReader();
      const lines = new LineSplitter();
      for (;;) {
        const { value, done } = await reader.read();
        if (done || stopped || term !== undefined) break;
        lines.push(value, (line) => {
          const event = JSON.parse(line) as { type?: string; object?: { spec?: LeaseRecord } };
          if (event.type === "DELETED" || (event.type === "MODIFIED" && !event.object?.spec?.holderIdentity))
            void round();
        });
      }
    } catch {
      // A broken watch only loses the shortcut; the next round opens it again.
    } finally {
      if (watching === controller) watching = undefined;
      controller.abort();
    }
  };
  const unwatch = () => watching?.abort();
  void round();
  return {
    status: () => ({
      name: options.name,
      namespace: options.namespace,
      identity: options.identity,
      leading: term !== undefined,
      ...(observed.record?.holderIdentity ? { holder: observed.record.holderIdentity } : {}),
      ...(term !== undefined ? { term } : {}),
      ...(renewedAt !== undefined ? { renewedAt } : {}),
    }),
    holds: (t) => term === t,
    leading: () =>
      term !== undefined ? Promise.resolve(term) : new Promise<number>((resolve) => waiting.push(resolve)),
    rounds: () => rounds,
    lastTerm: () => lastTerm,
    unreachable: () => unreachable,
    away: () => (unreachable ? { from: unreachable.since } : lastAway),
    async release() {
      stopped = true;
      timer?.();
      unwatch();
      if (term === undefined) return;
      term = undefined;
      const deadline = requestDeadline();
      try {
        await read(deadline.signal);
        if (observed.record?.holderIdentity === options.identity)
          // As client-go releases: no holder, a 1 s duration, both times now.
          await write(
            "update",
            {
              ...observed.record,
              holderIdentity: "",
              leaseDurationSeconds: 1,
              acquireTime: microTime(clock.now()),
              renewTime: microTime(clock.now()),
            },
            deadline.signal,
          );
      } catch (error) {
        logger.warn(`leader election: releasing the Lease failed: ${(error as Error).message}`);
      } finally {
        deadline.cancel();
      }
    },
    stop() {
      stopped = true;
      timer?.();
      unwatch();
    },
  };
}

/**
 * The Lease's owner: mon's own ServiceAccount when mon runs in the Lease's namespace (in-cluster), so that
 * removing the installation (helm uninstall, mon install --uninstall, kubectl delete -k) lets the garbage
 * collector remove the Lease too (issue 51); nothing with a kubeconfig. No blockOwnerDeletion: it would need
 * delete permission on the ServiceAccount.
 */
export function ownedBy(connection: KubeConnection, namespace: string): { ownerReferences?: object[] } {
  const sa = connection.serviceAccount?.();
  return sa && sa.namespace === namespace
    ? { ownerReferences: [{ apiVersion: "v1", kind: "ServiceAccount", name: sa.name, uid: sa.uid }] }
    : {};
}
