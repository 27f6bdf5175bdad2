/**
 * One step of what mon did with an object (issue 32 `mon explain`), as a closed list:
 * - `detected`: a finding is seen (its reason and summary);
 * - `held`: its opening waits — its own hold, young-node grace, its cause, its log;
 * - `suppressed`: out of scope, silenced (by which rule), under maintenance;
 * - `incident`: the incident it is part of, or the one it was folded into and why;
 * - `decided`: a lifecycle decision — announce, update, resolve — and how it goes (a message of its own, a
 *   roll-up, the startup summary, the digest), or a decision that sent nothing (cooldown, baseline);
 * - `delivered` / `failed`: what each provider answered;
 * - `gone`: the finding is no longer seen.
 */
export type TraceStep = "detected" | "held" | "suppressed" | "incident" | "decided" | "delivered" | "failed" | "gone";

/** One entry of an object's trace: when (epoch ms), which step, what it says, and the incident it concerns. */
export interface TraceEntry {
  readonly at: number;
  readonly step: TraceStep;
  readonly text: string;
  readonly incident?: string;
}
