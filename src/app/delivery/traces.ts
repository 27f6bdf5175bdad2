import type { TraceEntry } from "../../model/trace.ts";

/** Objects whose trace is kept; the one changed longest ago is forgotten first. */
export const MAX_TRACED_OBJECTS = 2_000;
/** Entries kept per object; the oldest go first. About 200 bytes each: at most about 16 MiB in all. */
export const MAX_TRACE_ENTRIES = 40;

/**
 * What mon did with each object, over time (issue 32 `mon explain`): the passes' traces (incident/explain.ts)
 * keeping only what changed — an entry is added when its step says something new — plus what each provider
 * answered for the incidents the object is part of, and `gone` when its finding is no longer seen. Bounded by
 * MAX_TRACED_OBJECTS and MAX_TRACE_ENTRIES.
 */
export class Traces {
  private readonly byObject = new Map<string, TraceEntry[]>();
  /** The objects each incident concerns (from the decisions), for delivery outcomes. */
  private readonly byIncident = new Map<string, Set<string>>();
  private failing = new Set<string>();
  /** What the last pass said of each object (step, text, incident): a pass saying it again adds nothing. */
  private lastPass = new Map<string, Set<string>>();

  /**
   * One pass's traces at `now` (epoch ms). An entry the previous pass also had is a repetition, not a change
   * (issue 52 item 8): an object with two findings at once — a Deployment's ProgressDeadlineExceeded and
   * WorkloadUnavailable — is recorded once, not once a pass, so the cap keeps the announce and delivery lines.
   */
  pass(traces: ReadonlyMap<string, readonly TraceEntry[]>, now: number): void {
    const failing = new Set<string>();
    const said = new Map<string, Set<string>>();
    for (const [key, entries] of traces) {
      const before = this.lastPass.get(key);
      const current = new Set<string>();
      said.set(key, current);
      for (const e of entries) {
        if (e.step === "detected") failing.add(key);
        if (e.incident) {
          const keys = this.byIncident.get(e.incident) ?? new Set();
          keys.add(key);
          this.byIncident.set(e.incident, keys);
        }
        const signature = `${e.step}\u0000${e.text}\u0000${e.incident ?? ""}`;
        current.add(signature);
        if (!before?.has(signature)) this.add(key, e);
      }
    }
    this.lastPass = said;
    for (const key of this.failing)
      if (!failing.has(key)) this.add(key, { at: now, step: "gone", text: "no longer seen failing" });
    this.failing = failing;
    while (this.byIncident.size > MAX_TRACED_OBJECTS) this.byIncident.delete(this.byIncident.keys().next().value!);
  }

  /** What became of a message of incident `incident` at `now` (epoch ms): a provider's answer, a budget fold. */
  delivery(incident: string, step: "delivered" | "failed" | "decided", text: string, now: number): void {
    for (const key of this.byIncident.get(incident) ?? []) this.add(key, { at: now, step, text, incident });
  }

  /** The trace of `Kind/namespace/name`, oldest first (empty when nothing was recorded). */
  of(key: string): readonly TraceEntry[] {
    return this.byObject.get(key) ?? [];
  }

  /** The traces of every object incident `id` concerns, by object. */
  ofIncident(id: string): Record<string, readonly TraceEntry[]> {
    return Object.fromEntries([...(this.byIncident.get(id) ?? [])].map((key) => [key, this.of(key)]));
  }

  // --- internal ---

  private add(key: string, entry: TraceEntry): void {
    const list = this.byObject.get(key) ?? [];
    // Only what is new: the same step saying the same thing again is the same state.
    const last = list.findLast((e) => e.step === entry.step);
    if (
      last &&
      last.text === entry.text &&
      last.incident === entry.incident &&
      entry.step !== "delivered" &&
      entry.step !== "failed"
    )
      return;
    list.push(entry);
    if (list.length > MAX_TRACE_ENTRIES) list.splice(0, list.length - MAX_TRACE_ENTRIES);
    // Most recently changed last: the first key is the one to forget.
    this.byObject.delete(key);
    this.byObject.set(key, list);
    if (this.byObject.size > MAX_TRACED_OBJECTS) this.byObject.delete(this.byObject.keys().next().value!);
  }
}
