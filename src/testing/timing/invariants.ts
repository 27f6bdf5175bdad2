import type { Told } from "../replay.ts";
import { conversationLines, threadsOf } from "./conversation.ts";

/** What one run under one timing delivered, judged (issue 28). */
export interface TimedJudgement {
  /** conversationLines() of what was told. */
  readonly conversation: readonly string[];
  /** The conversation equals the expected one (up to times). */
  readonly same: boolean;
  /** The invariants this run broke, one sentence each (empty when it holds them all). */
  readonly violations: readonly string[];
}

/**
 * Judges a run: the conversation against the expected one, and the invariants that hold for every story
 * whatever the timing (docs/incidents.md "Whatever the timing"):
 * 1. cause before symptom: no thread is folded into another after it was told ("now part of"), and no thread
 *    is announced for one reason and later blamed on another;
 * 2. no resolve while the failure is observable: not before the fix, and never with a `Now:` line that shows no
 *    recovery (fewer replicas or pods available than wanted, no ready endpoint, something still not back);
 *    a node's resolve says it is Ready again;
 * 3. no announcement for recovery traffic (nothing new announced after the fix) and no "failing again"
 *    inside one uninterrupted failure;
 * 4. a fixed failure resolves, within `resolvesWithin` seconds of the fix;
 * 5. a thread says what names its cause (`mentions`: the probe that killed, the workloads failing on it);
 * 6. no message says what a silence holds back (`unsaid`).
 * `storyFixedAt` (or a thread's own time in `fixes`) and `resolvesWithin` are seconds; told messages carry
 * seconds from the story's start.
 */
export function judgeTimed(
  expected: {
    readonly threads: readonly string[];
    readonly resolvesWithin?: number;
    readonly fixes?: Readonly<Record<string, number>>;
    readonly mentions?: Readonly<Record<string, readonly string[]>>;
    readonly notBack?: readonly string[];
    readonly unsaid?: readonly string[];
  },
  storyFixedAt: number | undefined,
  told: readonly Told[],
): TimedJudgement {
  const threads = threadsOf(told);
  const conversation = conversationLines(threads);
  const violations: string[] = [];
  for (const [id, messages] of threads) {
    const fixedAt = expected.fixes?.[id] ?? storyFixedAt;
    const first = messages.find((m) => m.action === "announce");
    for (const m of messages) {
      const at = `${id} at ${m.t.toFixed(1)} s`;
      if (m.action === "update" && m.text.includes("now part of:"))
        violations.push(`symptom before cause: ${at} was folded into another incident after it was told`);
      if (first && m.reason !== first.reason && m.reason !== "?")
        violations.push(
          `symptom before cause: ${id} was announced as ${first.reason}, then ${m.action} as ${m.reason}`,
        );
      if (/failing again/.test(m.text)) violations.push(`"failing again" inside one failure: ${at}`);
      if (m.action === "announce" && fixedAt !== undefined && m.t > fixedAt)
        violations.push(`recovery told as a new problem: ${at}, after the fix at ${fixedAt} s`);
      if (m.action !== "resolve") continue;
      if (fixedAt !== undefined && m.t < fixedAt)
        violations.push(`false resolve: ${at}, while the failure lasts until ${fixedAt} s`);
      const now = /^Now: (.*)\.$/m.exec(m.text)?.[1];
      if (now && !showsRecovery(now) && !expected.notBack?.includes(id))
        violations.push(`resolve without recovery: ${at} says "Now: ${now}"`);
      if (expected.notBack?.includes(id) && !/still not back after/.test(now ?? ""))
        violations.push(`resolve without what is not back: ${at} says "Now: ${now ?? "(nothing)"}"`);
      if (id.startsWith("Node//") && !(now && /^node (Ready again|removed)/.test(now)))
        violations.push(`node resolved without being Ready again: ${at} says "Now: ${now ?? "(nothing)"}"`);
    }
    for (const words of expected.mentions?.[id] ?? [])
      if (!messages.some((m) => m.text.includes(words))) violations.push(`${id} never says "${words}"`);
    // A thread the story never fixes (Infinity) need not resolve: any resolve of it is false (above).
    if (first && fixedAt !== undefined && Number.isFinite(fixedAt) && expected.resolvesWithin !== undefined) {
      const resolved = messages.find((m) => m.action === "resolve");
      const by = fixedAt + expected.resolvesWithin;
      if (!resolved) violations.push(`never resolved: ${id} (fixed at ${fixedAt} s)`);
      else if (resolved.t > by) violations.push(`resolved late: ${id} at ${resolved.t.toFixed(1)} s, bound ${by} s`);
    }
  }
  for (const words of expected.unsaid ?? [])
    for (const m of told)
      if (m.text.includes(words))
        violations.push(`says what is silenced: ${m.incidentId || m.delivery} at ${m.t.toFixed(1)} s names "${words}"`);
  const want = [...expected.threads].sort();
  const same = conversation.length === want.length && conversation.every((line, i) => line === want[i]);
  return { conversation, same, violations };
}

/** Whether a resolve's `Now:` line shows the root recovered (rule "a resolve says what changed"). */
export function showsRecovery(now: string): boolean {
  for (const [, have, want] of now.matchAll(/(\d+)\/(\d+) (?:replicas? available|pods ready)/g))
    if (Number(have) < Number(want)) return false;
  return !/still not back|no ready endpoint|not Ready/.test(now);
}
