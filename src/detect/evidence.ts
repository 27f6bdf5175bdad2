import type { Evidence, Finding } from "../model/finding.ts";
import { cut, cutStart } from "../redact/cut.ts";
import { redact } from "../redact/redact.ts";

/** Longest evidence value in characters. */
export const EVIDENCE_MAX = 500;

/**
 * Builds an evidence list from label/value pairs, skipping empty values. Values are redacted (spec 6.8), then
 * cut at 500 characters, so a cut never leaves part of a credential or of a marker (redact/cut.ts).
 */
export function evidence(pairs: readonly (readonly [string, unknown])[]): Evidence[] {
  const out: Evidence[] = [];
  for (const [label, value] of pairs) {
    if (value === undefined || value === null || value === "") continue;
    const text = redact(String(value)).text.replace(/\s+$/, "");
    out.push({ label, value: cut(text, EVIDENCE_MAX) });
  }
  return out;
}

/** Parses an RFC 3339 timestamp to epoch ms; `fallback` when absent or invalid. */
export function parseTime(value: unknown, fallback: number): number {
  if (typeof value !== "string") return fallback;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? fallback : ms;
}

/** Adds a container's last log lines to a finding's evidence (spec 1.6), once; the error line is the last, so a cut keeps the end. */
export function withLog(f: Finding, lines: readonly string[] | undefined): Finding {
  if (!lines || lines.length === 0) return f;
  return { ...f, evidence: [...f.evidence, { label: "log", value: cutStart(lines.join(" ⏎ "), EVIDENCE_MAX) }] };
}
