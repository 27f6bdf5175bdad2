import type { Outcome } from "../model/dispatch.ts";

/**
 * Why a delivery did not succeed (a closed list, STYLE.md convention 4): carried on every settled failure and
 * used as the bounded `reason` label of the `mon_delivery_*` counters. The vendor's own words stay apart, in
 * `detail`, and never become a label.
 * - from a provider's answer: `network`, `timeout`, `server_error` (5xx, 408), `unavailable` (another transient
 *   answer), `rate_limited`, `unauthorized` (401/403, a revoked or wrong credential), `too_large` (413 or a
 *   vendor's "too long" refusal, also mon's own size guard: delivery shortens and tries again), `rejected` (any
 *   other permanent refusal), `provider_error` (the provider itself failed);
 * - from delivery's own rules: `retries_exhausted` (retry.maxAttempts), `retry_window` (24 h), `outbox_full`
 *   (2,048 jobs), `expired` (left over 24 h by an earlier process), `provider_removed` (no longer configured).
 */
export const DELIVERY_FAILURES = [
  "network",
  "timeout",
  "server_error",
  "unavailable",
  "rate_limited",
  "unauthorized",
  "rejected",
  "too_large",
  "provider_error",
  "retries_exhausted",
  "retry_window",
  "outbox_full",
  "expired",
  "provider_removed",
] as const;

/** One of DELIVERY_FAILURES. */
export type DeliveryFailure = (typeof DELIVERY_FAILURES)[number];

/** A failure with the vendor's text (redacted by the caller before it is kept or logged). */
export interface Failure {
  readonly failure: DeliveryFailure;
  readonly detail: string;
}

/** Classifies a provider's non-ok outcome into a bounded failure reason; `detail` keeps the provider's words. */
export function failureOf(outcome: Exclude<Outcome, { kind: "ok" }>): Failure {
  if (outcome.kind === "rateLimited") return { failure: "rate_limited", detail: "rate limited" };
  const detail = outcome.reason;
  // The provider decided it, where the vendor's answer is understood (providers/_kit/outcome.ts).
  if (outcome.kind === "permanent") return { failure: outcome.failure, detail };
  if (detail === "timeout") return { failure: "timeout", detail };
  if (detail === "network" || detail.startsWith("network:")) return { failure: "network", detail };
  if (detail.startsWith("provider_error")) return { failure: "provider_error", detail };
  if (/^http_(5\d\d|408)\b/.test(detail)) return { failure: "server_error", detail };
  return { failure: "unavailable", detail };
}
