/**
 * Why a kind is not watched (spec 7.3 coverage reasons): declared once (issue 31.4), for the watch plan and
 * /health alike.
 */
export const COVERAGE_REASONS = [
  "permission_denied",
  "api_unavailable",
  "sync_timeout",
  "budget_exceeded",
  "object_cap_reached",
  "disabled_by_config",
] as const;

/** One of COVERAGE_REASONS. */
export type CoverageReason = (typeof COVERAGE_REASONS)[number];
