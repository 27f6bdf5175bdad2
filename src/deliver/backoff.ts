/** Upper bound of any single wait between attempts (spec 8: 5 min cap for rate limits). */
export const MAX_BACKOFF_MS = 5 * 60_000;

/** How long a transient failure is retried before the message is dropped and counted (spec 6 item 1, spec 8). */
export const RETRY_WINDOW_MS = 24 * 3_600_000;

/**
 * Milliseconds to wait before attempt `attempt + 1` (attempt counts from 1). A server hint (Retry-After)
 * wins, capped at one hour. Rate limits without a hint: 5 s doubling to 5 min (spec 6 item 2). Other
 * transient failures: 1 s doubling to 5 min. Both with ±20 % jitter from `random` (0..1).
 */
export function backoffMs(
  kind: "retry" | "rateLimited",
  attempt: number,
  hintMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (hintMs !== undefined) return Math.min(Math.max(0, hintMs), 3_600_000);
  const base = kind === "rateLimited" ? 5_000 : 1_000;
  const raw = Math.min(MAX_BACKOFF_MS, base * 2 ** Math.min(attempt - 1, 20));
  return Math.round(raw * (0.8 + random() * 0.4));
}
