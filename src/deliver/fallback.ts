import { isSummary, type Message } from "../model/message.ts";

/** What the fallback stage knows of a configured provider (spec 2.4 `fallback`, 6 item 5). */
export interface FallbackProvider {
  readonly name: string;
  readonly kind: "chat" | "paging" | "tracker" | "info";
  readonly fallback?: string;
}

/** Where a message a provider failed for good goes next, or why nowhere. */
export type Handover =
  | { readonly to: string; readonly send: true }
  /** The fallback got this very message already: it reached someone. */
  | { readonly to: string; readonly send: false };

/**
 * The fallback stage (spec 6 item 5): decides which provider gets a message `provider` failed for good.
 * None when no fallback is configured or active; none for what only the primary can do (a pager's or
 * tracker's opening and resolve); never a paging tool or tracker for a plain notice or summary; `send: false`
 * when the fallback got this very message already (`has`).
 */
export function fallbackFor(
  provider: string,
  message: Message,
  providers: ReadonlyMap<string, FallbackProvider>,
  has: (messageId: string, provider: string) => boolean,
): Handover | undefined {
  const name = providers.get(provider)?.fallback;
  if (!name || name === provider || !providers.has(name)) return undefined;
  const pages = (n: string) => providers.get(n)?.kind === "paging" || providers.get(n)?.kind === "tracker";
  const plain = isSummary(message) || message.root.kind === "Cluster";
  if (pages(provider) && !plain && message.action !== "update") return undefined;
  if (pages(name) && plain) return undefined;
  if (has(message.id, name)) return { to: name, send: false };
  return { to: name, send: true };
}
