import type { Decision, Skip } from "../model/decision.ts";
import type { AuditDecision, AuditDelivery, AuditEntry } from "../model/audit.ts";
import type { Incident } from "../model/incident.ts";

const DECIDED: Readonly<Record<Decision["action"], AuditDecision>> = {
  announce: "announced",
  update: "updated",
  resolve: "resolved",
  opened_resolved: "resolved",
};

/**
 * One audit entry per lifecycle decision (spec 6). An announcement folded into the startup summary or a
 * roll-up says so in `delivery`; a page-tier one also goes on its own to paging tools and trackers, which a
 * second entry says with `delivery: "paging"`. Each
 * skip is a `skipped` entry with its reason, `delivery: "absent"` (nothing is sent for it) and, for a
 * would-be incident folded into another, its root in `subject`. Pure.
 */
export function auditEntries(decisions: readonly Decision[], skipped: readonly Skip[], cluster: string): AuditEntry[] {
  const skips = skipped.map((k): AuditEntry => {
    const folded = k.reason !== "baseline" && k.reason !== "cooldown";
    return {
      ...head(k.at, cluster, "skipped", "absent"),
      skipReason: k.reason,
      ...about(k.incident),
      ...(folded ? { subject: k.subject } : {}),
      news: [],
    };
  });
  const told = decisions.flatMap((d): AuditEntry[] => {
    const i = d.incident;
    const entry = (delivery: AuditDelivery): AuditEntry => ({
      ...head(d.at, cluster, DECIDED[d.action], delivery),
      ...about(i),
      news: d.news,
      ...(i.resolvedAt !== undefined ? { openSeconds: Math.round((i.resolvedAt - i.openedAt) / 1000) } : {}),
    });
    // A page-tier announcement folded into a summary also goes on its own to paging tools and trackers.
    const alsoPaged = (d.delivery === "startup summary" || d.delivery === "roll-up") && i.mode === "page";
    return alsoPaged ? [entry(d.delivery!), entry("paging")] : [entry(d.delivery ?? "absent")];
  });
  return [...skips, ...told];
}

// --- internal ---

function head(at: number, cluster: string, decision: AuditDecision, delivery: AuditDelivery) {
  return { time: new Date(at).toISOString(), cluster, decision, delivery };
}

/** The fields every entry carries about its incident. */
function about(i: Incident) {
  return {
    incidentId: i.id,
    root: i.root,
    reason: i.rootReason,
    tier: i.tier,
    mode: i.mode,
    revision: i.revision,
    dedupKey: i.dedupKey,
    ...(i.owner ? { owner: i.owner } : {}),
    findings: i.findings.length,
  };
}
