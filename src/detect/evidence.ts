import type { Evidence } from "../model/finding.ts";

/** Builds an evidence list from label/value pairs, skipping empty values; values are cut at 500 characters. */
export function evidence(pairs: readonly (readonly [string, unknown])[]): Evidence[] {
  const out: Evidence[] = [];
  for (const [label, value] of pairs) {
    if (value === undefined || value === null || value === "") continue;
    const text = String(value).replace(/\s+$/, "");
    out.push({ label, value: text.length > 500 ? `${text.slice(0, 499)}…` : text });
  }
  return out;
}

/** Parses an RFC 3339 timestamp to epoch ms; `fallback` when absent or invalid. */
export function parseTime(value: unknown, fallback: number): number {
  if (typeof value !== "string") return fallback;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? fallback : ms;
}
