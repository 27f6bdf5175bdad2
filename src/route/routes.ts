import type { Message, RouteFacts } from "../model/message.ts";
import type { Tier } from "../model/severity.ts";

/** One route of a provider (spec 2.4, Pro): every field it sets must match. */
export interface Route {
  readonly namespaces?: readonly string[];
  readonly severities?: readonly Tier[];
  readonly reasons?: readonly string[];
  readonly owners?: readonly string[];
}

/**
 * True when a provider with `routes` receives a message about these problems (spec 2.4, 6 item 4): no
 * routes → everything; otherwise some route matches some problem. A route matches a problem when every field
 * it sets matches: the namespace is listed, the tier is listed, one of its reasons is listed, its owner is
 * listed (reasons and owners compare case-insensitively; a route listing owners still needs every other field
 * it sets to match). A summary, roll-up or digest matches when one problem it names matches. Pure.
 */
export function routesMatch(routes: readonly Route[] | undefined, problems: readonly RouteFacts[]): boolean {
  if (!routes || routes.length === 0) return true;
  return problems.some((p) => routes.some((r) => routeMatches(r, p)));
}

/** The problems a message is about: those a summary names, or the message's own incident. */
export function problemsOf(message: Message): readonly RouteFacts[] {
  if (message.problems) return message.problems;
  if (message.covers) return message.covers.map((incidentId) => ({ incidentId, tier: message.tier, reasons: [] }));
  const namespace = message.root.namespace ?? message.findings.find((f) => f.object.namespace)?.object.namespace;
  return [
    {
      incidentId: message.incidentId,
      ...(namespace ? { namespace } : {}),
      tier: message.tier,
      reasons: [...new Set([message.reason, ...message.findings.map((f) => f.reason)])],
      ...(message.owner ? { owner: message.owner } : {}),
    },
  ];
}

// --- internal ---

function routeMatches(route: Route, p: RouteFacts): boolean {
  if (route.namespaces?.length && !(p.namespace !== undefined && route.namespaces.includes(p.namespace))) return false;
  if (route.severities?.length && !route.severities.includes(p.tier)) return false;
  if (route.reasons?.length) {
    const wanted = new Set(route.reasons.map((r) => r.toLowerCase()));
    if (!p.reasons.some((r) => wanted.has(r.toLowerCase()))) return false;
  }
  if (
    route.owners?.length &&
    !(p.owner !== undefined && route.owners.some((o) => o.toLowerCase() === p.owner!.toLowerCase()))
  )
    return false;
  return true;
}
