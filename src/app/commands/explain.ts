/** One object's trace as the diagnostics endpoints serve it (`at` RFC 3339). */
export interface TraceView {
  readonly object: string;
  /** When the trace began (RFC 3339): this replica began to lead then; the trace is kept in memory only. */
  readonly tracedSince?: string;
  readonly entries: readonly {
    readonly at: string;
    readonly step: string;
    readonly text: string;
    readonly incident?: string;
  }[];
}

/**
 * The lines `mon explain` prints: each object, then its trace oldest first, one line per step —
 * `HH:MM:SS  step       what` — or that nothing was recorded (mon never saw it failing, or forgot it).
 */
export function explainLines(views: readonly TraceView[]): string[] {
  const out: string[] = [];
  for (const v of views) {
    out.push(v.object.replace(/\/\//, "/"));
    if (v.entries.length === 0)
      out.push(
        v.tracedSince
          ? `  nothing recorded since ${v.tracedSince.slice(11, 19)} UTC, when this replica began to lead: mon has not seen it failing since (the trace is kept in memory: a restart or a takeover starts it anew; the audit log keeps the decisions, --audit)`
          : "  nothing recorded: mon has not seen it failing (or no longer remembers it)",
      );
    for (const e of v.entries) out.push(`  ${e.at.slice(11, 19)}  ${e.step.padEnd(10)} ${e.text}`);
  }
  return out;
}
