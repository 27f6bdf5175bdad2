import type { Finding } from "../model/finding.ts";
import type { SeverityOverrides } from "../model/rules.ts";
import type { Tier } from "../model/severity.ts";

export type { SeverityOverrides } from "../model/rules.ts";

/** Builds the overrides from configuration maps, whose keys are case-insensitive. */
export function severityOverrides(
  byReason: Readonly<Record<string, Tier>> = {},
  byOwnerKind: Readonly<Record<string, Tier>> = {},
): SeverityOverrides {
  const lower = (m: Readonly<Record<string, Tier>>) =>
    new Map(Object.entries(m).map(([k, v]) => [k.toLowerCase(), v] as const));
  return { byReason: lower(byReason), byOwnerKind: lower(byOwnerKind) };
}

/**
 * Applies the overrides to one finding (spec 3.2): `severityByReason` first, then `severityByOwnerKind` (the
 * kind at the top of the finding's owner chain, or its own kind). An override replaces the built-in tier: an
 * override to `critical` pages (named as the page rule `severityByReason` or `severityByOwnerKind`), any other
 * drops a built-in page rule. The incident's tier is then the loudest of its findings, as always. Pure.
 */
export function overrideSeverity(finding: Finding, ownerKind: string, overrides: SeverityOverrides): Finding {
  const byReason = overrides.byReason.get(finding.reason.toLowerCase());
  const byKind = byReason === undefined ? overrides.byOwnerKind.get(ownerKind.toLowerCase()) : undefined;
  const tier = byReason ?? byKind;
  if (tier === undefined) return finding;
  const { pageRule: _dropped, ...rest } = finding;
  return tier === "critical"
    ? { ...rest, tier, pageRule: byReason !== undefined ? "severityByReason" : "severityByOwnerKind" }
    : { ...rest, tier };
}
