/**
 * The stages of a pass after detection, as `mon_panics_recovered_total{stage}` names them when one throws on an
 * incident (a closed list).
 */
export type PassStage = "rate" | "defer" | "correlate" | "hold" | "step" | "annotate" | "compose";

/** The stages of PassStage, in the order a pass runs them. */
export const PASS_STAGES: readonly PassStage[] = ["rate", "defer", "correlate", "hold", "step", "annotate", "compose"];

/**
 * What a stage threw on and set aside this pass (issue 41, item 6): the stage, the incident (`Kind/ns/name` of
 * its root) or finding key, and the error's message.
 */
export interface SetAside {
  readonly stage: PassStage;
  readonly id: string;
  readonly error: string;
}

/**
 * Runs a stage over all its items, isolating the ones it throws on (issue 41, item 6): when `run(items)` throws,
 * each item is run alone; those that throw alone are set aside (recorded in `setAside`), and the stage runs
 * again over the rest. One odd incident costs the others nothing but a second run of the stage. `fault` is
 * called before each item is looked at: a test's way to make a stage throw on chosen incidents. Throws when
 * the rest still throws (a failure no item shows alone): the pass's panic guard takes it then.
 */
export function isolating<T, R>(
  stage: PassStage,
  items: readonly T[],
  idOf: (item: T) => string,
  run: (items: readonly T[]) => R,
  setAside: SetAside[],
  fault?: (stage: PassStage, id: string) => void,
): R {
  const guarded = (subset: readonly T[]) => {
    if (fault) for (const item of subset) fault(stage, idOf(item));
    return run(subset);
  };
  try {
    return guarded(items);
  } catch {
    const kept: T[] = [];
    for (const item of items) {
      try {
        guarded([item]);
        kept.push(item);
      } catch (error) {
        setAside.push({ stage, id: idOf(item), error: errorText(error) });
      }
    }
    return guarded(kept);
  }
}

/** One line of what an error says, for the log and a plain message. */
export function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 300);
}
