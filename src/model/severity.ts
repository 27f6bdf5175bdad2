/**
 * The severity tiers of spec 3.2, loudest first (index 0 is the loudest): declared once (issue 31.4); the
 * configuration accepts exactly these (config/schema.ts SEVERITIES).
 */
export const TIER_NAMES = ["critical", "high", "medium", "warning", "normal"] as const;

/** One severity tier of spec 3.2. */
export type Tier = (typeof TIER_NAMES)[number];

/** All tiers, loudest first (index 0 is the loudest). */
export const TIERS: readonly Tier[] = TIER_NAMES;

/** How an incident of a tier is delivered (spec 3.2): critical pages, normal goes to the digest. */
export type DeliveryMode = "page" | "notify" | "digest";

/** The four status emoji of spec 3.2; every message starts with exactly one of them. */
export type StatusMark = "page" | "notify" | "low" | "resolved";

/** Returns the louder of two tiers. */
export function louder(a: Tier, b: Tier): Tier {
  return TIERS.indexOf(a) <= TIERS.indexOf(b) ? a : b;
}
