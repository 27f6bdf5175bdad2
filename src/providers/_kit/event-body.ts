import type { Impact } from "../../model/impact.ts";
import { isSummary, type Message } from "../../model/message.ts";

/** Version of the JSON body documented in docs/providers/webhook.md. */
export const WEBHOOK_BODY_VERSION = "1";

/**
 * The one event body mon sends (docs/providers/webhook.md): the webhook posts it, and the event buses (Kafka,
 * Pub/Sub, EventBridge) carry it as their record, message data or event detail (issue 31.6).
 */
export interface WebhookBody {
  version: string;
  action: Message["action"];
  incidentId: string;
  messageId: string;
  dedupKey: string;
  /** `mon.io/owner` of the root, when set. */
  owner?: string;
  cluster: string;
  root: { kind: string; namespace?: string; name: string };
  tier: Message["tier"];
  mode: Message["mode"];
  reason: string;
  title: string;
  text: string;
  news: readonly string[];
  nextSteps: readonly string[];
  findings: {
    reason: string;
    object: { kind: string; namespace?: string; name: string };
    container?: string;
    tier: string;
    summary: string;
    evidence: Record<string, string>;
  }[];
  /**
   * What changed before the incident began (issue 32), on announcements and updates whose root has an owner
   * chain: the last change (`at` RFC 3339), or `[]` when nothing changed in the 24 h looked at.
   */
  changes?: {
    kind: "rollout" | "spec" | "created" | "deleted" | "restarted";
    object: { kind: string; namespace?: string; name: string };
    manager?: string;
    at: string;
    what: readonly string[];
  }[];
  /** Who is hurt (issue 32): entry points with their ready backends, internal Services, workloads, dependents. */
  impact?: Impact;
  at: string;
  /** `startup summary`, `roll-up` or `digest` on a message naming several incidents (and on a roll-up's closing message); `notice` on the startup message; absent on others. */
  delivery?: "startup summary" | "roll-up" | "digest" | "restored summary" | "notice";
  /** On a summary: the incident ids it lists (their updates and resolves follow under these ids). */
  covers?: readonly string[];
  /**
   * On a summary: each problem it lists, in the order of `covers` — its id, the reason of its root (the
   * `reason` its own later messages carry) and its tier.
   */
  problems?: { incidentId: string; reason: string; tier: string }[];
}

/** Builds the documented body for a message, for cluster `cluster`. Pure. */
export function webhookBody(message: Message, cluster: string): WebhookBody {
  return {
    version: WEBHOOK_BODY_VERSION,
    action: message.action,
    incidentId: message.incidentId,
    messageId: message.id,
    dedupKey: message.dedupKey,
    ...(message.owner ? { owner: message.owner } : {}),
    cluster,
    root: { ...message.root },
    tier: message.tier,
    mode: message.mode,
    reason: message.reason,
    title: message.title,
    text: message.text,
    news: message.news,
    nextSteps: message.nextSteps ?? [],
    findings: message.findings.map((f) => ({
      reason: f.reason,
      object: wireRef(f.object),
      ...(f.container ? { container: f.container } : {}),
      tier: f.tier,
      summary: f.summary,
      evidence: Object.fromEntries(f.evidence.map((e) => [e.label, e.value])),
    })),
    ...(message.changes
      ? {
          changes: message.changes.map((c) => ({
            kind: c.kind,
            object: wireRef(c.object),
            ...(c.manager ? { manager: c.manager } : {}),
            at: new Date(c.at).toISOString(),
            what: c.what,
          })),
        }
      : {}),
    ...(message.impact ? { impact: message.impact } : {}),
    at: new Date(message.at).toISOString(),
    ...(isSummary(message)
      ? {
          delivery: message.delivery,
          covers: message.covers ?? [],
          ...(message.problems
            ? {
                problems: message.problems.map((p) => ({
                  incidentId: p.incidentId,
                  reason: p.reasons[0] ?? "",
                  tier: p.tier,
                })),
              }
            : {}),
        }
      : {}),
    ...(message.delivery === "notice" ? { delivery: "notice" as const } : {}),
  };
}

/** An object as the body names it: kind, namespace when it has one, name. */
function wireRef(o: { kind: string; namespace?: string; name: string }): {
  kind: string;
  namespace?: string;
  name: string;
} {
  return { kind: o.kind, ...(o.namespace ? { namespace: o.namespace } : {}), name: o.name };
}
