import type { Metrics } from "../../metrics.ts";
import type { Cancel, Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import { collectGarbage, residentBytes } from "../../runtime/memory.ts";

/** How often the resident memory is compared with the soft limit, ms: a flood grows it within seconds. */
export const MEMORY_CHECK_MS = 1_000;
/** The guard acts from this share of the soft limit on, before the limit is reached (issue 30). */
export const EARLY_SHARE = 0.8;
/** Below the limit, a collection is forced again once the resident set grew this share of the limit since. */
const REGROWTH_SHARE = 0.05;

/**
 * The soft memory limit (spec 8: 90 % of MON_MEMORY_LIMIT, or an explicit GOMEMLIMIT; docs/performance.md
 * "Memory limit"). Bun has no heap limit to set, so this is what the runtime allows: every MEMORY_CHECK_MS (1 s)
 * the resident set is compared with the limit; from EARLY_SHARE (80 %) of it on, a full garbage collection is
 * forced whenever the resident set grew 5 % of the limit since the last one (every check above the limit) and
 * counted in mon_memory_pressure_total, so a burst's garbage (a flood's events and passes) is collected while
 * there is room, and a steady resident set costs nothing; above the limit it is said once per episode (the
 * episode ends below 90 % of the soft limit). It
 * cannot keep the process under the limit when live data needs more: the container's own limit is the bound.
 * `read` and `collect` default to the runtime's (runtime/memory.ts).
 */
export function startMemoryGuard(options: {
  softLimitBytes: number;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  read?: () => number;
  collect?: () => void;
}): { stop(): void } {
  const { clock, logger, metrics, softLimitBytes } = options;
  const read = options.read ?? residentBytes;
  const collect = options.collect ?? collectGarbage;
  metrics.memorySoftLimit.set(softLimitBytes);
  const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;
  let over = false;
  /** The lowest resident set since the last forced collection, bytes (what a collection could get back to). */
  let collectedTo = 0;
  let timer: Cancel | undefined;
  const check = () => {
    const rss = read();
    collectedTo = Math.min(collectedTo, rss);
    // Before the limit, only what grew since the last collection is worth one: a resident set that sits at 85 %
    // of the limit would otherwise pay a full collection every second for nothing.
    const grew = rss > collectedTo + softLimitBytes * REGROWTH_SHARE;
    if (rss > softLimitBytes || (rss > softLimitBytes * EARLY_SHARE && grew)) {
      collect();
      metrics.memoryPressure.inc();
      collectedTo = read();
    }
    if (rss > softLimitBytes) {
      if (!over)
        logger.warn(
          `memory: ${mib(rss)} resident is above the soft limit of ${mib(softLimitBytes)}; forced a garbage collection (now ${mib(read())})`,
        );
      over = true;
    } else if (over && rss < softLimitBytes * 0.9) {
      over = false;
      logger.info(`memory: ${mib(rss)} resident, back under the soft limit of ${mib(softLimitBytes)}`);
    }
    timer = clock.setTimer(check, MEMORY_CHECK_MS);
  };
  timer = clock.setTimer(check, MEMORY_CHECK_MS);
  return { stop: () => timer?.() };
}
