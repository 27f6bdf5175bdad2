import type * as v from "valibot";
import type { Logger } from "../../runtime/logger.ts";
import type { Outcome } from "../../model/dispatch.ts";
import type { Message } from "../../model/message.ts";
import type { HttpClient } from "../../outbound/client.ts";
import type { Clock } from "../../runtime/clock.ts";

/** Provider kinds (spec 2.4): who receives what is decided by `route/` from this. */
export type ProviderKind = "chat" | "paging" | "tracker" | "info";

/** How a provider keeps one incident in one conversation (ARCHITECTURE.md "Providers"). */
export type Threading = "none" | "thread" | "edit" | "comment" | "dedup_key";

/** What `send` receives besides the message. */
export interface SendContext {
  /** The vendor's conversation id from the announcement (thread ts, issue number), when there was one. */
  readonly conversation?: string;
  readonly signal: AbortSignal;
  /** Epoch ms, for Retry-After dates. */
  readonly now: number;
}

/** What `create` receives: validated options with credentials already read from their files. */
export interface ProviderDeps {
  readonly http: HttpClient;
  readonly logger: Logger;
  readonly clusterName: string;
  /** Where the `stdout` provider writes; the process's standard output outside tests. */
  readonly stdout: (text: string) => void;
  /** Time for providers that must act on their own (alertmanager re-posts open alerts); the wall clock when absent. */
  readonly clock?: Clock;
}

/**
 * A constructed provider: builds a request, sends it once, classifies the response. Never retries (STYLE.md 3).
 * Its name and kind are its definition's.
 */
export interface Provider {
  send(message: Message, context: SendContext): Promise<Outcome>;
  /** Tests credentials without side effects (`mon lint --check`), where the vendor allows it. */
  check?(signal: AbortSignal): Promise<Outcome>;
  /** Stops what the provider does on its own (timers); called once at shutdown. */
  close?(): void;
}

/**
 * How the guided setup presents a provider (spec 2.4, deploy/provider-catalog.tsv): how to get its credential,
 * option groups of which exactly one is set (`oneOf`), options that need others (`requires`), and groups of
 * which at least one is set (`atLeastOne`).
 */
export interface ProviderGuide {
  readonly credential: string;
  readonly oneOf?: readonly (readonly string[])[];
  readonly requires?: Readonly<Record<string, readonly string[]>>;
  readonly atLeastOne?: readonly (readonly string[])[];
}

/**
 * A provider definition (one file per provider, STYLE.md convention 1).
 * - `options`: valibot schema of `alert.<name>`; it owns validation, types and docs.
 * - `credentials`: option keys that accept only `${file:/absolute/path}` (spec 2.4); read before `create`.
 * - `create`: builds the provider; throws Error with a message naming the key when options are inconsistent.
 */
export interface ProviderDefinition<S extends v.GenericSchema = v.GenericSchema> {
  readonly name: string;
  readonly kind: ProviderKind;
  readonly title: string;
  readonly threading: Threading;
  /** Guided-setup metadata: the credential's source, choice groups and conditional options. */
  readonly guide?: ProviderGuide;
  readonly options: S;
  readonly credentials: readonly string[];
  /** Credential keys that may also be given inline (a generic webhook URL is not always secret). */
  readonly credentialsMayBeInline?: readonly string[];
  /**
   * Its receiver shows the message as plain text (SMS, push notifications, an email's text, standard output):
   * `templates` (Pro, spec 2.1) rewrite the text it gets. Rich providers (chat blocks, JSON bodies) ignore them.
   */
  readonly plainText?: boolean;
  create(options: v.InferOutput<S>, deps: ProviderDeps): Provider;
}

/**
 * A provider of the registry, whatever its option schema: `create` takes options its schema validated (the
 * configuration pipeline, config/alert.ts, guarantees it), so the registry needs no cast per provider.
 */
export type RegisteredProvider = Omit<ProviderDefinition, "create"> & {
  create(options: never, deps: ProviderDeps): Provider;
};

/**
 * Declares a provider. Checks the declaration (a credential key must exist in the option schema),
 * and freezes it so the registry cannot change after start. Throws Error on an invalid declaration.
 */
export function defineProvider<S extends v.GenericSchema>(
  definition: ProviderDefinition<S>,
): Readonly<ProviderDefinition<S>> {
  if (!/^[a-z][A-Za-z0-9]*$/.test(definition.name))
    throw new Error(`provider name ${definition.name} must be lowerCamelCase`);
  const entries = (definition.options as unknown as { entries?: Record<string, unknown> }).entries ?? {};
  for (const key of definition.credentials) {
    if (!(key in entries)) throw new Error(`provider ${definition.name}: credential ${key} is not an option`);
  }
  return Object.freeze({ ...definition, credentials: Object.freeze([...definition.credentials]) });
}

/**
 * Epoch ms for a provider that reads time itself (a `check()`, a re-post): the injected clock, so tests and
 * replays decide it; the wall clock only where no clock was given (issue 31.6).
 */
export function nowOf(deps: Pick<ProviderDeps, "clock">): number {
  return deps.clock ? deps.clock.now() : Date.now();
}
