/**
 * A period the control plane was away from a replica (issue 53): from `from` to `to` (epoch ms; `to` absent while
 * it lasts).
 */
export interface Absence {
  readonly from: number;
  readonly to?: number;
}

/**
 * The control plane's last absence from what saw it (an unanswered election, a blind period): the one that ended
 * last (an ongoing one, with no `to`, first), widened to the start of those that overlap it (one after another); undefined when
 * none. Pure.
 */
export function latestAbsence(...periods: (Absence | undefined)[]): Absence | undefined {
  const end = (p: Absence) => p.to ?? Number.POSITIVE_INFINITY;
  const known = periods.filter((p) => p !== undefined).sort((a, b) => end(b) - end(a));
  const latest = known[0];
  if (!latest) return undefined;
  // Descending by end: each that reaches the start so far widens it; the first that does not ends the chain.
  let from = latest.from;
  for (const p of known) {
    if (end(p) < from) break;
    from = Math.min(from, p.from);
  }
  return { ...latest, from };
}
