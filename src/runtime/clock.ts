/** A cancel handle for a scheduled wake-up. */
export type Cancel = () => void;

/**
 * The injected source of time (ARCHITECTURE.md "The pure core ... takes time as an argument").
 * `now()` is epoch milliseconds; delays are milliseconds.
 */
export interface Clock {
  /** Current time as epoch milliseconds. */
  now(): number;
  /** Runs `fn` once after `delayMs` milliseconds; returns a cancel handle. */
  setTimer(fn: () => void, delayMs: number): Cancel;
  /** Resolves after `delayMs` milliseconds, or rejects with the signal's reason when aborted. */
  sleep(delayMs: number, signal?: AbortSignal): Promise<void>;
  /** Elapsed milliseconds from an arbitrary origin that setting the wall clock cannot move. */
  monotonic?(): number;
}

/** The wall clock: the only place outside `runtime/` tests where real time is read. */
export function createSystemClock(): Clock {
  return {
    now: () => Date.now(),
    monotonic: () => performance.now(),
    setTimer(fn, delayMs) {
      const handle = setTimeout(fn, Math.max(0, delayMs));
      return () => clearTimeout(handle);
    },
    sleep: (delayMs, signal) =>
      sleepWith(
        (fn, ms) => {
          const handle = setTimeout(fn, Math.max(0, ms));
          return () => clearTimeout(handle);
        },
        delayMs,
        signal,
      ),
  };
}

/**
 * A clock driven by the test: time moves only through `advance(ms)`, which fires due timers in order.
 * Lets a test replay hours of retries or grace periods in milliseconds.
 */
export interface FakeClock extends Clock {
  /** Moves time forward by `ms`, firing every timer due on the way (awaiting microtasks between them). */
  advance(ms: number): Promise<void>;
  /** Number of timers still scheduled. */
  pending(): number;
  /** Epoch ms of the earliest scheduled timer, if any. */
  nextAt(): number | undefined;
}

/** Creates a FakeClock starting at `startMs` (epoch milliseconds). */
export function createFakeClock(startMs = Date.UTC(2026, 0, 1)): FakeClock {
  let now = startMs;
  let seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const setTimer = (fn: () => void, delayMs: number): Cancel => {
    const id = ++seq;
    timers.set(id, { at: now + Math.max(0, delayMs), fn });
    return () => void timers.delete(id);
  };
  return {
    now: () => now,
    // Time only moves forward here, so the fake clock is its own monotonic source.
    monotonic: () => now,
    setTimer,
    sleep: (delayMs, signal) => sleepWith(setTimer, delayMs, signal),
    pending: () => timers.size,
    nextAt() {
      let next: number | undefined;
      for (const { at } of timers.values()) if (next === undefined || at < next) next = at;
      return next;
    },
    async advance(ms) {
      const target = now + ms;
      for (;;) {
        await flushMicrotasks();
        let next: [number, { at: number; fn: () => void }] | undefined;
        for (const entry of timers) if (entry[1].at <= target && (!next || entry[1].at < next[1].at)) next = entry;
        if (!next) break;
        timers.delete(next[0]);
        now = next[1].at;
        next[1].fn();
      }
      now = target;
      await flushMicrotasks();
    },
  };
}

// --- internal ---

function sleepWith(
  setTimer: (fn: () => void, ms: number) => Cancel,
  delayMs: number,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const cancel = setTimer(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, delayMs);
    const onAbort = () => {
      cancel();
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Lets every pending promise chain run (one real macrotask turn), so code awaiting I/O-free work schedules its next timer. */
/**
 * Lets everything already queued run, I/O callbacks included: one turn of the event loop. setImmediate takes a
 * turn without the ~1 ms clamp of setTimeout(0), so a test can move a fake clock through days of timers.
 */
async function flushMicrotasks(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
  await new Promise<void>((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}
