/** Severity tiers of spec 3.2, loudest first. */
export type Tier = "critical" | "high" | "medium" | "warning" | "normal";

/** All tiers, loudest first (index 0 is the loudest). */
export const TIERS: readonly Tier[] = ["critical", "high", "medium", "warning", "normal"];

/** How an incident of a tier is delivered (spec 3.2): critical pages, normal goes to the digest. */
export type DeliveryMode = "page" | "notify" | "digest";

/** The four status emoji of spec 3.2; every message starts with exactly one of them. */
export type StatusMark = "page" | "notify" | "low" | "resolved";

/** Returns the louder of two tiers. */
export function louder(a: Tier, b: Tier): Tier {
  return TIERS.indexOf(a) <= TIERS.indexOf(b) ? a : b;
}
