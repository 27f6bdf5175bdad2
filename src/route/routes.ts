import { namespacesOf } from "../model/object-ref.ts";
import type { Message, RouteFacts } from "../model/message.ts";
import type { Route } from "../model/rules.ts";

export type { Route } from "../model/rules.ts";

/**
 * True when a provider with `routes` receives a message about these problems (spec 2.4, 6 item 4): no
 * routes → everything; otherwise some route matches some problem. A route matches a problem when every field
 * it sets matches one of the problem's: one of its namespaces is listed, its tier is listed, one of its
 * reasons is listed, one of its owners is listed — a problem's namespaces, reasons and owners are those of its
 * root and of every finding, so an incident spanning namespaces (a lost node, an endpoint several workloads
 * fail on) reaches the route of each. Reasons and owners compare case-insensitively. A summary, roll-up or
 * digest matches when one problem it names matches. Pure.
 */
export function routesMatch(routes: readonly Route[] | undefined, problems: readonly RouteFacts[]): boolean {
  if (!routes || routes.length === 0) return true;
  return problems.some((p) => routes.some((r) => routeMatches(r, p)));
}

/** The problems a message is about: those a summary names, or the message's own incident. */
export function problemsOf(message: Message): readonly RouteFacts[] {
  if (message.problems) return message.problems;
  if (message.covers)
    return message.covers.map((incidentId) => ({
      incidentId,
      tier: message.tier,
      namespaces: [],
      reasons: [],
      owners: [],
    }));
  return [
    {
      incidentId: message.incidentId,
      namespaces: namespacesOf(message.root, message.findings),
      tier: message.tier,
      reasons: [...new Set([message.reason, ...message.findings.map((f) => f.reason)])],
      owners: message.owners ?? (message.owner ? [message.owner] : []),
    },
  ];
}

// --- internal ---

function routeMatches(route: Route, p: RouteFacts): boolean {
  if (route.namespaces?.length && !p.namespaces.some((n) => route.namespaces!.includes(n))) return false;
  if (route.severities?.length && !route.severities.includes(p.tier)) return false;
  if (route.reasons?.length && !overlaps(route.reasons, p.reasons)) return false;
  if (route.owners?.length && !overlaps(route.owners, p.owners)) return false;
  return true;
}

/** Whether two lists share a value, case-insensitively. */
function overlaps(a: readonly string[], b: readonly string[]): boolean {
  const wanted = new Set(a.map((x) => x.toLowerCase()));
  return b.some((x) => wanted.has(x.toLowerCase()));
}
