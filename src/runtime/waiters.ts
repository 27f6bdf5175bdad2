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
