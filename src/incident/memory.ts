/** Seconds of memory of earlier announcements (spec 1.8): a day. */
export const MEMORY_SECONDS = 86_400;

/** How far each interval may stray from their mean and still count as steady: 20 %. */
const STEADY_TOLERANCE = 0.2;

/** What mon remembers of one root's announcements (spec 1.8): epoch ms of each, and whether its rhythm was stated. */
export interface Recurrence {
  readonly told: readonly number[];
  readonly stated?: boolean;
}

/** How a returning incident is told (spec 1.8). `everySeconds` is set with `state`. */
export type RecurrenceVerdict =
  | { readonly verdict: "announce" }
  | { readonly verdict: "state"; readonly everySeconds: number }
  | { readonly verdict: "digest" };

/**
 * Judges an incident that opens again (spec 1.8): told fewer than twice in the last day → `announce`;
 * told twice or more and the openings (this one included) come at steady intervals, not yet stated →
 * `state` once ("fails every N minutes"); otherwise → `digest`. Page-tier incidents are not judged here:
 * they always page. Pure: `now` is epoch ms.
 */
export function judgeRecurrence(memory: Recurrence | undefined, now: number): RecurrenceVerdict {
  const told = (memory?.told ?? []).filter((t) => now - t < MEMORY_SECONDS * 1000);
  if (told.length < 2) return { verdict: "announce" };
  if (!memory?.stated) {
    const times = [...told, now];
    const intervals = times.slice(1).map((t, i) => t - times[i]!);
    const mean = intervals.reduce((a, b) => a + b, 0) / intervals.length;
    if (mean >= 60_000 && intervals.every((d) => Math.abs(d - mean) <= mean * STEADY_TOLERANCE))
      return { verdict: "state", everySeconds: Math.round(mean / 1000) };
  }
  return { verdict: "digest" };
}

/** Remembers one more announcement (or recurrence) at `now`, forgetting what is older than a day. */
export function remember(memory: Recurrence | undefined, now: number, stated = false): Recurrence {
  const told = [...(memory?.told ?? []).filter((t) => now - t < MEMORY_SECONDS * 1000), now];
  return { told, ...(stated || memory?.stated ? { stated: true } : {}) };
}

/** Drops memories with nothing left inside the day, so memory stays bounded by a day of incidents. */
export function forget(memories: ReadonlyMap<string, Recurrence>, now: number): Map<string, Recurrence> {
  const kept = new Map<string, Recurrence>();
  for (const [id, m] of memories) if (m.told.some((t) => now - t < MEMORY_SECONDS * 1000)) kept.set(id, m);
  return kept;
}
