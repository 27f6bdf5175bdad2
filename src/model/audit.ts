import type { ObjectRef } from "./object-ref.ts";
import type { DeliveryMode, Tier } from "./severity.ts";

/** What was decided (spec 6 "audit entry"). `skipped` is for decisions that send nothing. */
export type AuditDecision = "announced" | "updated" | "resolved" | "skipped";

/** How the decision reaches people (spec 6): `absent` means a message of its own. */
export type AuditDelivery = "absent" | "startup summary" | "paging" | "digest" | "roll-up";

/** One audit entry: one JSON line per incident decision. Field names are documented in docs/audit.md. */
export interface AuditEntry {
  /** RFC 3339 time of the decision. */
  readonly time: string;
  readonly cluster: string;
  readonly decision: AuditDecision;
  readonly delivery: AuditDelivery;
  /** Spec 1 skip reasons (`baseline`, `node_inhibition`, `mass_failure`, `cascading_suppression`, `cooldown`), on `skipped` only. */
  readonly skipReason?: string;
  readonly incidentId: string;
  /** On a folding skip (`node_inhibition`, `cascading_suppression`, `mass_failure`): the root that got no incident of its own. */
  readonly subject?: ObjectRef;
  readonly root: ObjectRef;
  readonly reason: string;
  readonly tier: Tier;
  readonly mode: DeliveryMode;
  /** Counts messages of the incident's conversation: 1 for the announcement. */
  readonly revision: number;
  readonly dedupKey: string;
  /** `mon.io/owner` of the root, when set. */
  readonly owner?: string;
  /** Number of findings the incident explains. */
  readonly findings: number;
  /** What became true (updates). */
  readonly news: readonly string[];
  /** Seconds the incident was open (resolves). */
  readonly openSeconds?: number;
}
