import type { Decision } from "../model/decision.ts";
import type { AuditDecision, AuditDelivery, AuditEntry } from "../model/audit.ts";

const DECIDED: Readonly<Record<Decision["action"], AuditDecision>> = { announce: "announced", update: "updated", resolve: "resolved", opened_resolved: "resolved" };

/**
 * One audit entry per lifecycle decision (spec 6). An announcement folded into the startup summary or a
 * roll-up says so in `delivery` (a page-tier one also goes on its own to paging tools and trackers). Pure.
 */
export function auditEntries(decisions: readonly Decision[], cluster: string): AuditEntry[] {
  return decisions.map((d) => {
    const i = d.incident;
    const delivery: AuditDelivery = d.delivery ?? "absent";
    return {
      time: new Date(d.at).toISOString(),
      cluster,
      decision: DECIDED[d.action],
      delivery,
      incidentId: i.id,
      root: i.root,
      reason: i.rootReason,
      tier: i.tier,
      mode: i.mode,
      revision: i.revision,
      dedupKey: i.dedupKey,
      ...(i.owner ? { owner: i.owner } : {}),
      findings: i.findings.length,
      news: d.news,
      ...(i.resolvedAt !== undefined ? { openSeconds: Math.round((i.resolvedAt - i.openedAt) / 1000) } : {}),
    };
  });
}
