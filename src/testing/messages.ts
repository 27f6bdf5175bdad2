import type { Action } from "../model/decision.ts";
import type { Message } from "../model/message.ts";

/** A minimal Message for routing and delivery tests. */
export function message(incidentId: string, action: Action, extra: Partial<Message> = {}): Message {
  return {
    id: `${incidentId}#${action}`,
    incidentId,
    action,
    mark: action === "resolve" ? "resolved" : "notify",
    emoji: action === "resolve" ? "✅" : "🟠",
    tier: "medium",
    mode: "notify",
    title: `${action} ${incidentId}`,
    text: `🟠 ${action} ${incidentId}`,
    markdown: `🟠 **${action} ${incidentId}**`,
    root: { kind: "Deployment", namespace: "shop", name: incidentId },
    reason: "CrashLoopBackOff",
    findings: [],
    news: [],
    dedupKey: `mon-test-${incidentId}`,
    at: 0,
    ...extra,
  };
}
