import { createHash } from "node:crypto";
import type { Message } from "../../model/message.ts";

/**
 * The dedup key where a vendor caps its length (providers.md 1.2): the key itself when it fits, else
 * `mon-<first 16 hex of sha256(key)>` — stable across restarts and state resets; the full key then travels in
 * the body or details.
 */
export function shortKey(key: string, max: number): string {
  if (key.length <= max) return key;
  return `mon-${createHash("sha256").update(key).digest("hex").slice(0, 16)}`;
}

/** True for the messages that end an incident at a paging tool: its resolve, or one opened and resolved at once. */
export function ends(message: Message): boolean {
  return message.action === "resolve" || message.action === "opened_resolved";
}

/** Escapes `&`, `<`, `>` (and `"` for attributes) for vendors that take HTML text. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Base64 of an HMAC-SHA256 of `data` under `key` (strings as UTF-8): how Feishu, DingTalk and Standard Webhooks sign. */
export async function hmacSha256Base64(key: string | Uint8Array<ArrayBuffer>, data: string): Promise<string> {
  const raw = typeof key === "string" ? new TextEncoder().encode(key) : key;
  const cryptoKey = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return base64(new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, new TextEncoder().encode(data))));
}

/** Base64 of bytes, or of a string's UTF-8. */
export function base64(data: Uint8Array | string): string {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}
