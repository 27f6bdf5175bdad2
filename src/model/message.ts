import type { Action, Delivery } from "./decision.ts";
import type { Impact } from "./impact.ts";
import type { ObjectRef } from "./object-ref.ts";
import type { Evidence } from "./finding.ts";
import type { DeliveryMode, StatusMark, Tier } from "./severity.ts";

/** One finding as a message carries it (enough for rich renderers and the webhook body). */
export interface MessageFinding {
  readonly reason: string;
  readonly object: ObjectRef;
  readonly container?: string;
  readonly tier: Tier;
  readonly summary: string;
  readonly evidence: readonly Evidence[];
}

/** What routes match on for one problem a message is about (spec 2.4 routes): namespace, tier, reasons, owner. */
export interface RouteFacts {
  readonly incidentId: string;
  /** The namespaces of the root and of every finding (a lost node's pods, an endpoint's workloads span several). */
  readonly namespaces: readonly string[];
  readonly tier: Tier;
  /** The root's reason first (a summary's webhook body names it per problem), then its findings' reasons. */
  readonly reasons: readonly string[];
  /** The owners (`mon.io/owner`) of the root and of every finding's object. */
  readonly owners: readonly string[];
}

/**
 * A rendered, provider-neutral message (notify/ output). `text` is plain text, `markdown` uses
 * CommonMark-ish bold and code; providers with a rich format build it from the structured fields.
 */
export interface Message {
  /** Unique per message: `<incidentId>#<revision>`. */
  readonly id: string;
  readonly incidentId: string;
  readonly action: Action;
  readonly mark: StatusMark;
  /** The status emoji the message starts with (spec 3.2). */
  readonly emoji: string;
  readonly tier: Tier;
  readonly mode: DeliveryMode;
  readonly title: string;
  readonly text: string;
  readonly markdown: string;
  readonly root: ObjectRef;
  readonly reason: string;
  readonly findings: readonly MessageFinding[];
  readonly news: readonly string[];
  /**
   * What to do first (announcements and updates): the reason's built-in steps, then the runbook URL
   * (`runbooks`, Pro) as `Runbook: <url>`. Absent on resolves, summaries and notices.
   */
  readonly nextSteps?: readonly string[];
  readonly dedupKey: string;
  /** Who owns the incident's root (`mon.io/owner`, spec 2.6), when someone is named. */
  readonly owner?: string;
  /** Who owns the root and each finding's object (routes match any of them, spec 2.4). */
  readonly owners?: readonly string[];
  /**
   * What changed before the incident began (issue 32), on announcements and updates of a root with an owner
   * chain: the last change, or none (`[]`) in the 24 h looked at. Absent when not looked for.
   */
  readonly changes?: readonly MessageChange[];
  /** Who is hurt (issue 32), on announcements and updates of an incident that hurts a workload or a Service. */
  readonly impact?: Impact;
  /** Epoch ms of the decision that produced it. */
  readonly at: number;
  /**
   * Set on the startup summary and on the page-tier announcements sent only to paging tools and trackers;
   * `notice` on a plain notice about mon itself (the startup message), for every provider but paging tools
   * and trackers.
   */
  readonly delivery?: Delivery | "notice" | "restored summary";
  /** Incident ids a startup summary lists (their conversations start with it). */
  readonly covers?: readonly string[];
  /** For a summary, roll-up or digest: the problems it names, for route matching (spec 6 item 4). */
  readonly problems?: readonly RouteFacts[];
}

/** A change as a message carries it: `at` epoch ms, `what` the short lines of its difference. */
export interface MessageChange {
  readonly kind: "rollout" | "spec" | "created" | "deleted" | "restarted";
  readonly object: ObjectRef;
  readonly manager?: string;
  readonly at: number;
  readonly what: readonly string[];
}

/**
 * True for a message that names several problems for people to read — a startup summary, roll-up, digest or
 * restored-incident summary (spec 6): informational, so paging tools and trackers get none of them, the hourly
 * budget does not count them, and a paging provider is never their fallback.
 */
export function isSummary<M extends Pick<Message, "delivery">>(
  message: M,
): message is M & { readonly delivery: "startup summary" | "roll-up" | "digest" | "restored summary" } {
  const d = message.delivery;
  return d === "startup summary" || d === "roll-up" || d === "digest" || d === "restored summary";
}
