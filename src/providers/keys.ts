import { createHash } from "node:crypto";
import type { Message } from "../model/message.ts";

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
