/** Lower bound of any wait between attempts: no answer of a provider makes mon try more than once a second. */
export const MIN_BACKOFF_MS = 1_000;

/** Upper bound of any single wait between attempts (spec 8: 5 min cap for rate limits). */
export const MAX_BACKOFF_MS = 5 * 60_000;

/**
 * Upper bound of a wait after a transient failure (an outage, a timeout): a provider that comes back is
 * drained within this long, while a dead one is tried at most twice a minute.
 */
export const MAX_TRANSIENT_BACKOFF_MS = 30_000;

/** How long a transient failure is retried before the message is dropped and counted (spec 6 item 1, spec 8). */
export const RETRY_WINDOW_MS = 24 * 3_600_000;

/**
 * Milliseconds to wait before attempt `attempt + 1` (attempt counts from 1). A server hint (Retry-After)
 * wins, at least 1 s and at most one hour; a hint of 0 or less is no hint. Rate limits without a hint: 5 s doubling to 5 min (spec 6 item 2). Other
 * transient failures: 1 s doubling to 30 s. Both with ±20 % jitter from `random` (0..1).
 */
export function backoffMs(
  kind: "retry" | "rateLimited",
  attempt: number,
  hintMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (hintMs !== undefined && hintMs > 0) return Math.min(Math.max(MIN_BACKOFF_MS, hintMs), 3_600_000);
  const base = kind === "rateLimited" ? 5_000 : 1_000;
  const cap = kind === "rateLimited" ? MAX_BACKOFF_MS : MAX_TRANSIENT_BACKOFF_MS;
  const raw = Math.min(cap, base * 2 ** Math.min(attempt - 1, 20));
  return Math.round(raw * (0.8 + random() * 0.4));
}
