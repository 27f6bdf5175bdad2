import type { Job } from "../model/job.ts";
import type { Message } from "../model/message.ts";

/** What routing needs to know of a configured provider. */
export interface RoutedProvider {
  readonly name: string;
  readonly kind: "chat" | "paging" | "tracker" | "info";
}

/** Who hears what, and which configured providers are inactive (spec 1.10, 2.1 app.communityProvider). */
export interface Router {
  /** Providers that receive messages. */
  readonly active: readonly string[];
  /** Configured providers that receive nothing in this edition. */
  readonly inactive: readonly string[];
  /** A warning to log once at startup, when `app.communityProvider` names no configured provider. */
  readonly warning?: string;
  /**
   * Jobs for one message. Updates and resolves go to exactly the providers that got the announcement. The
   * startup summary, a roll-up and the digest go to every active provider but paging tools and trackers, which get the
   * page-tier announcements marked `delivery: "paging"` instead; each incident a summary lists continues with
   * the providers that got it, and a roll-up's closing message follows the roll-up.
   */
  route(message: Message, now: number, openedResolved?: Message): Job[];
}

/**
 * Creates the Community router (spec 1.10): one provider only, `communityProvider` when it is configured,
 * else the first by name. A conversation stays with the providers its announcement went to (spec 6 item 4),
 * even across later configuration of the root; after a restart with no record, the current choice applies.
 */
export function createRouter(options: { providers: readonly RoutedProvider[]; communityProvider?: string }): Router {
  const names = options.providers.map((p) => p.name).sort();
  const wanted = options.communityProvider ?? "";
  const kept = wanted && names.includes(wanted) ? wanted : names[0];
  const warning = wanted && !names.includes(wanted) ? `app.communityProvider ${wanted} is not configured; keeping ${kept ?? "no provider"}` : undefined;
  const active = kept ? [kept] : [];
  const conversations = new Map<string, readonly string[]>();
  const kinds = new Map(options.providers.map((p) => [p.name, p.kind] as const));
  const pages = (name: string) => kinds.get(name) === "paging" || kinds.get(name) === "tracker";
  const join = (id: string, targets: readonly string[]) => conversations.set(id, [...new Set([...(conversations.get(id) ?? []), ...targets])].sort());

  return {
    active,
    inactive: names.filter((n) => n !== kept),
    ...(warning ? { warning } : {}),
    route(message, now, openedResolved) {
      let targets: readonly string[];
      if ((message.delivery === "startup summary" || message.delivery === "roll-up" || message.delivery === "digest") && message.action === "announce") {
        // Paging tools and trackers get each page-tier problem on its own instead (spec 6).
        targets = active.filter((n) => !pages(n));
        for (const id of message.covers ?? []) join(id, targets);
        if (message.delivery === "roll-up") conversations.set(message.incidentId, targets);
      } else if (message.delivery === "paging") {
        targets = active.filter(pages);
        join(message.incidentId, targets);
      } else if (message.action === "announce" || message.action === "opened_resolved") {
        targets = active;
        conversations.set(message.incidentId, targets);
      } else {
        targets = conversations.get(message.incidentId) ?? active;
        if (message.action === "resolve") conversations.delete(message.incidentId);
      }
      const urgent = message.action === "resolve" || message.mode === "page";
      return targets.map((provider) => ({
        id: `${provider}:${message.id}`,
        provider,
        message,
        priority: urgent ? "urgent" : "routine",
        createdAt: now,
        ...(openedResolved ? { openedResolved } : {}),
      }));
    },
  };
}
