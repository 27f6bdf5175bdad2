import type { Message } from "../../model/message.ts";

/**
 * A vendor's four-step severity scale for a message (issue 31.6: one tier → vendor severity map for every
 * provider): page-tier (`mode: page`) is the top, tier high or critical next, then medium or warning, normal
 * last. A digest counts as normal. Pure.
 */
export function severityOf<T>(message: Message, scale: readonly [page: T, high: T, medium: T, low: T]): T {
  if (message.mode === "page") return scale[0];
  if (message.mode === "digest" || message.tier === "normal") return scale[3];
  if (message.tier === "high" || message.tier === "critical") return scale[1];
  return scale[2];
}
