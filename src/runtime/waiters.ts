import type { Clock } from "./clock.ts";

/** Promises waiting for one condition, released together by `release()` or each by its own timeout. */
export interface Waiters {
  /** Resolves true when released, false after `timeoutMs` milliseconds on the clock. */
  wait(timeoutMs: number): Promise<boolean>;
  /** Resolves every pending wait with true. */
  release(): void;
}

/** Creates a set of waiters on `clock` (used for "caches synced" and "queues drained"). */
export function createWaiters(clock: Clock): Waiters {
  const pending = new Set<() => void>();
  return {
    wait(timeoutMs) {
      return new Promise<boolean>((resolve) => {
        const done = () => {
          pending.delete(done);
          cancel();
          resolve(true);
        };
        const cancel = clock.setTimer(() => {
          pending.delete(done);
          resolve(false);
        }, timeoutMs);
        pending.add(done);
      });
    },
    release() {
      for (const done of [...pending]) done();
    },
  };
}

/**
 * Resolves true when `work` settles within `timeoutMs` on `clock`, false when it did not (it keeps running;
 * the caller goes on). A rejection counts as settled: the caller asked whether it stopped, not how.
 */
export function settlesWithin(clock: Clock, work: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  const waiters = createWaiters(clock);
  void work.then(
    () => waiters.release(),
    () => waiters.release(),
  );
  return waiters.wait(timeoutMs);
}
