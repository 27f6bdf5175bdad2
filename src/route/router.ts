import type { Edition } from "../model/edition.ts";
import type { Dispatch } from "../model/dispatch.ts";
import { isSummary, type Message } from "../model/message.ts";
import { problemsOf, routesMatch, type Route } from "./routes.ts";

/** What routing needs to know of a configured provider (spec 2.4). */
export interface RoutedProvider {
  readonly name: string;
  readonly kind: "chat" | "paging" | "tracker" | "info";
  /** Pro: who this provider hears about; absent or empty → everything. */
  readonly routes?: readonly Route[];
  /** The provider that takes over its messages when it fails (deliver/fallback.ts). */
  readonly fallback?: string;
}

/** A note about what Community does with the configuration, for lint and the startup log: key and sentence. */
export interface CommunityNote {
  readonly key: string;
  readonly message: string;
}

/**
 * Which provider Community keeps (spec 1.10, 2.1 app.communityProvider): the one `app.communityProvider` names,
 * else a chat provider over an informational one over an issue tracker over a pager (a pager woken for every
 * incident is the worst default), ties by name. Undefined without providers.
 */
export function communityChoice(providers: readonly RoutedProvider[], wanted = ""): string | undefined {
  if (wanted && providers.some((p) => p.name === wanted)) return wanted;
  const rank = { chat: 0, info: 1, tracker: 2, paging: 3 } as const;
  return [...providers].sort((a, b) => rank[a.kind] - rank[b.kind] || a.name.localeCompare(b.name))[0]?.name;
}

/**
 * What Community leaves out of the configuration, said once so it is never silent: routes and fallbacks have
 * no effect, and every incident goes to the one provider it keeps (named, with how it was chosen). Empty with
 * one provider and neither routes nor fallbacks.
 */
export function communityNotes(providers: readonly RoutedProvider[], wanted = ""): CommunityNote[] {
  const kept = communityChoice(providers, wanted);
  if (!kept) return [];
  const notes: CommunityNote[] = [];
  const others = providers.filter((p) => p.name !== kept).map((p) => p.name);
  if (others.length)
    notes.push({
      key: "alert",
      message: `Community delivers every incident to one provider: ${kept}${wanted === kept ? " (app.communityProvider)" : " (chosen: a chat provider over an informational one over a tracker over a pager; set app.communityProvider to choose)"}; ${others.join(", ")} receive${others.length === 1 ? "s" : ""} nothing without Pro`,
    });
  for (const p of providers) {
    if (p.routes?.length)
      notes.push({
        key: `alert.${p.name}.routes`,
        message: `alert.${p.name}.routes: routes are a Pro setting; in Community they have no effect and ${kept} receives every incident`,
      });
    if (p.fallback)
      notes.push({
        key: `alert.${p.name}.fallback`,
        message: `alert.${p.name}.fallback: in Community only ${kept} receives messages, so ${p.fallback} never takes over`,
      });
  }
  return notes;
}

/** Who hears what, and which configured providers are inactive (spec 1.10, 2.1 app.communityProvider, 6). */
export interface Router {
  /** Providers that receive messages in the current edition. */
  readonly active: readonly string[];
  /** Configured providers that receive nothing in the current edition. */
  readonly inactive: readonly string[];
  /** A warning to log once at startup, when `app.communityProvider` names no configured provider. */
  readonly warning?: string;
  /** What Community leaves out of the configuration (`communityNotes`), to say once while Community. */
  readonly communityNotes: readonly CommunityNote[];
  /**
   * Jobs for one message. Updates and resolves go to exactly the providers that got the announcement. The
   * startup summary, a roll-up and the digest go to every active provider but paging tools and trackers, which get the
   * page-tier announcements marked `delivery: "paging"` instead; each incident a summary lists continues with
   * the providers that got it, and a roll-up's closing message follows the roll-up. In Pro a provider's
   * routes choose what it hears. (The hourly budget and fallbacks are deliver/'s.)
   */
  route(message: Message, now: number, openedResolved?: Message): Dispatch[];
  /** Takes up the conversations an earlier process recorded (incident id → providers that got its announcement). */
  restore(entries: Iterable<readonly [string, readonly string[]]>): void;
  /** A job for one provider outside routing (an overflow digest for the provider it belongs to). */
  direct(provider: string, message: Message, now: number): Dispatch;
  /** A provider joins an incident's conversation (a fallback took over a message): its updates and resolve follow. */
  join(incidentId: string, provider: string): void;
}

/**
 * Creates the router (spec 1.10, 6). Community: one provider only — `communityChoice`. Pro: every configured provider, each filtered by its routes. A conversation stays with
 * the providers its announcement went to (spec 6 item 4), even when the root's owner label changes; after a
 * restart with no record, an update or resolve is judged on the route parts it carries.
 */
export function createRouter(options: {
  providers: readonly RoutedProvider[];
  communityProvider?: string;
  /** The edition, or how to read it when it changes while running (the license decides it). */
  edition?: Edition | (() => Edition);
  onConversation?: (incidentId: string, providers: readonly string[] | undefined) => void;
}): Router {
  const names = options.providers.map((p) => p.name).sort();
  const edition = typeof options.edition === "function" ? options.edition : () => options.edition ?? "community";
  const wanted = options.communityProvider ?? "";
  const kept = communityChoice(options.providers, wanted);
  const warning =
    wanted && !names.includes(wanted)
      ? `app.communityProvider ${wanted} is not configured; keeping ${kept ?? "no provider"}`
      : undefined;
  const community = kept ? [kept] : [];
  const activeNow = () => (edition() === "pro" ? names : community);
  const byName = new Map(options.providers.map((p) => [p.name, p] as const));
  const conversations = new Map<string, readonly string[]>();
  // Every change of who holds a conversation is reported, so it can be kept across restarts (state/).
  const remember = (id: string, targets: readonly string[] | undefined) => {
    if (targets) conversations.set(id, targets);
    else conversations.delete(id);
    options.onConversation?.(id, targets);
  };
  const pages = (name: string) => byName.get(name)?.kind === "paging" || byName.get(name)?.kind === "tracker";
  const routed = (name: string, message: Message) =>
    edition() !== "pro" || routesMatch(byName.get(name)?.routes, problemsOf(message));
  const join = (id: string, targets: readonly string[]) =>
    remember(id, [...new Set([...(conversations.get(id) ?? []), ...targets])].sort());
  const job = (provider: string, message: Message, now: number, openedResolved?: Message): Dispatch => ({
    id: `${provider}:${message.id}`,
    provider,
    message,
    priority: message.action === "resolve" || message.mode === "page" ? "urgent" : "routine",
    createdAt: now,
    ...(openedResolved ? { openedResolved } : {}),
  });

  return {
    communityNotes: communityNotes(options.providers, wanted),
    get active() {
      return activeNow();
    },
    get inactive() {
      const active = activeNow();
      return names.filter((n) => !active.includes(n));
    },
    ...(warning ? { warning } : {}),
    route(message, now, openedResolved) {
      const active = activeNow();
      const pro = edition() === "pro";
      let targets: readonly string[];
      if (message.delivery === "notice") {
        // Plain notices go to every provider but paging tools and trackers, whatever their routes (spec 6).
        return active.filter((n) => !pages(n)).map((provider) => job(provider, message, now));
      }
      if (isSummary(message) && message.action === "announce") {
        // Paging tools and trackers get each page-tier problem on its own instead (spec 6).
        targets = active.filter((n) => !pages(n) && routed(n, message));
        for (const p of problemsOf(message))
          join(
            p.incidentId,
            targets.filter((n) => !pro || routesMatch(byName.get(n)?.routes, [p])),
          );
        if (message.delivery === "roll-up") remember(message.incidentId, targets);
      } else if (message.delivery === "paging") {
        targets = active.filter((n) => pages(n) && routed(n, message));
        join(message.incidentId, targets);
      } else if (message.action === "announce" || message.action === "opened_resolved") {
        targets = active.filter((n) => routed(n, message));
        remember(message.incidentId, targets);
      } else {
        targets = conversations.get(message.incidentId) ?? active.filter((n) => routed(n, message));
        if (message.action === "resolve") remember(message.incidentId, undefined);
      }
      // A conversation begun in Pro continues, after Pro ended, only with the provider Community keeps.
      return targets.filter((n) => active.includes(n)).map((provider) => job(provider, message, now, openedResolved));
    },
    restore(entries) {
      // A provider no longer configured cannot continue a conversation; the others still do.
      for (const [id, providers] of entries) {
        const kept = providers.filter((p) => names.includes(p));
        if (kept.length) conversations.set(id, kept);
      }
    },
    direct: (provider, message, now) => job(provider, message, now),
    join: (incidentId, provider) => join(incidentId, [provider]),
  };
}
