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

/**
 * What reading a container's log gave (app/pass/log-evidence.ts): its last error lines, or why there are none
 * (its output gone with the container, the kubelet unreachable, no answer in time).
 */
export type LogOutcome = { readonly lines: readonly string[] } | { readonly unavailable: string };

/** Longest "log unavailable" reason in characters: a kubelet's error can quote a whole URL. */
const UNAVAILABLE_MAX = 200;

/**
 * Adds a container's last log lines to a finding's evidence (spec 1.6), once; the error line is the last, so a
 * cut keeps the end. A log that could not be read says so under its own label, `log unavailable` (issue 50): an
 * error of the kubelet is never shown as what the container printed, and never ties workloads by an error line.
 */
export function withLog(f: Finding, outcome: LogOutcome | undefined): Finding {
  if (!outcome) return f;
  if ("unavailable" in outcome)
    return {
      ...f,
      evidence: [
        ...f.evidence,
        { label: "log unavailable", value: cut(redact(outcome.unavailable).text, UNAVAILABLE_MAX) },
      ],
    };
  if (outcome.lines.length === 0) return f;
  return {
    ...f,
    evidence: [...f.evidence, { label: "log", value: cutStart(outcome.lines.join(" ⏎ "), EVIDENCE_MAX) }],
  };
}

/** What reading a down node's Lease gave (app/pass/heartbeat-evidence.ts): its `renewTime`, or why not. */
export type HeartbeatOutcome = { readonly renewedAt: string } | { readonly unavailable: string };

/**
 * Adds a down node's last heartbeat to its finding's evidence (issue 50): when its Lease was last renewed, the
 * kubelet's heartbeat (the Ready condition's time is only its last status post, up to 5 minutes older), or why
 * the Lease could not be read.
 */
export function withHeartbeat(f: Finding, outcome: HeartbeatOutcome | undefined): Finding {
  if (!outcome) return f;
  const entry =
    "renewedAt" in outcome
      ? { label: "last heartbeat", value: `${outcome.renewedAt} (its Lease)` }
      : { label: "last heartbeat unavailable", value: cut(outcome.unavailable, UNAVAILABLE_MAX) };
  return { ...f, evidence: [...f.evidence, entry] };
}
