import type * as v from "valibot";
import type { Outcome } from "../../model/dispatch.ts";
import type { Message } from "../../model/message.ts";
import type { HttpClient } from "../../outbound/client.ts";
import { defineProvider, type ProviderDefinition, type ProviderGuide, nowOf } from "./define.ts";

/** A tracker call's result: the outcome, and the issue id when the call names one. */
export interface TrackerResult {
  readonly outcome: Outcome;
  readonly id?: string;
}

/** The vendor calls a tracker provides; each is one attempt, classified (STYLE.md 3). */
export interface TrackerApi {
  /** The open issue carrying `key`, if any (the source of truth after a restart or state loss). */
  find(key: string, signal: AbortSignal, now: number): Promise<TrackerResult>;
  create(message: Message, signal: AbortSignal, now: number): Promise<TrackerResult>;
  comment(id: string, message: Message, signal: AbortSignal, now: number): Promise<Outcome>;
  close(id: string, message: Message, signal: AbortSignal, now: number): Promise<Outcome>;
  /** Reads the tracker once (mon lint --check); `now` is epoch ms from the injected clock. */
  check?(signal: AbortSignal, now: number): Promise<Outcome>;
}

/** The hidden marker trackers put in an issue body to find it by its key (providers.md 3.3). */
export function marker(key: string): string {
  return `<!-- mon-dedup: ${key} -->`;
}

/**
 * The search-or-create tracker (providers.md 5 "tracker search-or-create-comment-close"): the
 * announcement creates an issue — unless an open one already carries the incident's key, which then gets a
 * comment; updates comment; the resolve comments and closes. The issue id is the conversation; without one
 * (a restart that forgot it) the issue is found by its key. A create whose answer names no issue is `ok` with
 * `untracked` (counted in `mon_tracker_untracked_total`).
 */
export function defineTracker<S extends v.GenericSchema>(spec: {
  name: string;
  title: string;
  guide?: ProviderGuide;
  options: S;
  credentials: readonly string[];
  api: (options: v.InferOutput<S>, http: HttpClient, cluster: string) => TrackerApi;
}): Readonly<ProviderDefinition<S>> {
  return defineProvider({
    name: spec.name,
    kind: "tracker",
    title: spec.title,
    ...(spec.guide ? { guide: spec.guide } : {}),
    threading: "comment",
    options: spec.options,
    credentials: spec.credentials,
    create(options, deps) {
      const api = spec.api(options, deps.http, deps.clusterName);
      return {
        async send(message, context): Promise<Outcome> {
          const { signal, now } = context;
          let id = context.conversation;
          if (!id) {
            const found = await api.find(message.dedupKey, signal, now);
            if (found.outcome.kind !== "ok") return found.outcome;
            id = found.id;
          }
          const ending = message.action === "resolve" || message.action === "opened_resolved";
          if (!id) {
            // Nothing open carries the key: a resolve has nothing to close; anything else opens an issue.
            if (message.action === "resolve") return { kind: "ok" };
            const created = await api.create(message, signal, now);
            if (created.outcome.kind !== "ok") return created.outcome;
            if (!created.id) return { kind: "ok", untracked: true };
            id = created.id;
            if (!ending) return { kind: "ok", conversation: id };
          } else {
            const commented = await api.comment(id, message, signal, now);
            if (commented.kind !== "ok") return commented;
          }
          if (ending) {
            const closed = await api.close(id, message, signal, now);
            if (closed.kind !== "ok") return closed;
          }
          return { kind: "ok", conversation: id };
        },
        ...(api.check ? { check: (signal: AbortSignal) => api.check!(signal, nowOf(deps)) } : {}),
      };
    },
  });
}
