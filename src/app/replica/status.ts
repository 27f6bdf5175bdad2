import type { HealthRegistry } from "../../health/registry.ts";
import type { Inventory } from "../../kube/inventory.ts";
import { maskLicenseId } from "../../license/lease.ts";
import type { LicenseManager } from "../../license/manager.ts";
import type { LifecycleState } from "../../incident/lifecycle.ts";
import type { Edition } from "../../model/edition.ts";
import type { UsageView } from "../../model/inventory.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { StatusInput } from "../../status/report.ts";
import { VERSION } from "../../version.ts";

/**
 * What /status shows now (spec 4.1), assembled from the leader's work: the open incidents told (announced or
 * in the digest), the caches, usage, what mon does not see and why (coverage gaps and components not ok),
 * the license (its id masked; `fixed` when the edition was fixed) and the providers.
 */
export function statusSource(deps: {
  clock: Clock;
  cluster: string;
  health: HealthRegistry;
  inventory: Inventory;
  edition: () => Edition;
  lifecycle: () => LifecycleState;
  usage: () => UsageView;
  license?: LicenseManager;
}): () => StatusInput {
  return () => {
    const report = deps.health.report();
    const licensed = deps.license?.state();
    return {
      now: deps.clock.now(),
      cluster: deps.cluster,
      version: VERSION,
      edition: deps.edition(),
      leading: true,
      incidents: [...deps.lifecycle().incidents.values()].filter(
        (i) => i.phase === "open" && (i.announced || i.digested),
      ),
      inventory: deps.inventory,
      usage: deps.usage(),
      unseen: [
        ...report.coverage.kinds.map((k) => ({ what: k.kind, reason: k.reason })),
        ...Object.entries(report.components)
          .filter(([, c]) => c.state !== "ok")
          .map(([name, c]) => ({ what: name, reason: c.reason ?? c.state })),
      ],
      license: licensed
        ? {
            state: licensed.name,
            ...(licensed.licenseId ? { licenseId: maskLicenseId(licensed.licenseId) } : {}),
            ...(licensed.leaseExpiresAt !== undefined ? { leaseExpiresAt: licensed.leaseExpiresAt } : {}),
            ...(licensed.licenseExpiresAt !== undefined ? { licenseExpiresAt: licensed.licenseExpiresAt } : {}),
            ...(licensed.reason ? { reason: licensed.reason } : {}),
          }
        : { state: deps.edition() === "pro" ? "fixed" : "community" },
      providers: report.providers,
    };
  };
}
