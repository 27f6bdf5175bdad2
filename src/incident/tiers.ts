import type { Finding } from "../model/finding.ts";
import { louder, type DeliveryMode, type Tier } from "../model/severity.ts";

/**
 * Tier and delivery mode of an incident (spec 3.2): the loudest finding wins; a finding that matches a page
 * rule makes the incident critical and paging; `normal` goes to the digest; everything else notifies.
 */
export function incidentTier(findings: readonly Finding[]): { tier: Tier; mode: DeliveryMode; pageRule?: string } {
  const paging = findings.find((f) => f.pageRule);
  if (paging) return { tier: "critical", mode: "page", pageRule: paging.pageRule };
  let tier: Tier = "normal";
  for (const f of findings) tier = louder(tier, f.tier === "critical" ? "high" : f.tier);
  return { tier, mode: tier === "normal" ? "digest" : "notify" };
}

/**
 * Paging dedup key `mon-<cluster>-<root>-<mode>` (spec 2.6; providers.md 1.2): lower case, `[a-z0-9-]`,
 * at most 255 characters. Derived only from the cluster name and the root, so it survives state resets.
 */
export function dedupKey(
  cluster: string,
  root: { kind: string; namespace?: string; name: string },
  mode: string,
): string {
  const raw = ["mon", cluster || "cluster", root.kind, root.namespace ?? "", root.name, mode].filter(Boolean).join("-");
  return raw
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/-+/g, "-")
    .slice(0, 255)
    .replace(/-$/, "");
}
