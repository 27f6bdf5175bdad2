import type { HealthRegistry } from "../health/registry.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { ProbeCheck, ProbeStatus, ProbeTarget } from "../model/probe.ts";
import type { Cancel, Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { checkTarget } from "./check.ts";
import { allProbeTargets, roundOf, type ProbeSettings } from "./targets.ts";

/** Most probes in flight at once, so a round of 400 automatic targets does not open 400 sockets together. */
const CONCURRENCY = 16;

/** The probe source (spec 2.3): rounds of checks, and the probes currently failing or slow. */
export interface ProbeRunner {
  /** Runs one round now; resolves when every check of it has finished or timed out. */
  round(): Promise<void>;
  /** Starts a round every interval (the first at once). */
  start(): void;
  stop(): void;
  /** Probes failing at least `failureThreshold` rounds in a row, or answering slower than their limits. */
  latest(): readonly ProbeStatus[];
}

/**
 * Runs active probes (spec 2.3, Pro): each round takes its targets from the settings and the inventory
 * (`allProbeTargets`, `roundOf`), checks them at most 16 at a time with `timeoutMs` each, and counts consecutive failures
 * per target. A target is reported once it has failed `failureThreshold` rounds in a row and forgotten on its
 * first success (a probe resolves on its first success). A slow http answer is reported at once. `onRound`
 * runs after each round so a pass can use it. The `probes` health component is ok once rounds run (a failing
 * probe is a finding about its target, not a fault of mon).
 */
export function createProbeRunner(options: {
  settings: ProbeSettings;
  intervalMs: number;
  timeoutMs: number;
  failureThreshold: number;
  inventory: InventoryView;
  clock: Clock;
  logger: Logger;
  health: HealthRegistry;
  onRound?: () => void;
}): ProbeRunner {
  const { clock } = options;
  const streaks = new Map<string, { target: ProbeTarget; failures: number; since: number; last: ProbeCheck }>();
  const slow = new Map<string, ProbeStatus>();
  let rounds = 0;
  let timer: Cancel | undefined;
  let stopped = false;

  const round = async () => {
    const all = allProbeTargets(options.settings, options.inventory);
    const targets = roundOf(all, rounds++);
    const results = new Map<string, ProbeCheck>();
    let next = 0;
    const worker = async () => {
      while (next < targets.length) {
        const target = targets[next++]!;
        results.set(target.name, await checkTarget(target, options.timeoutMs, clock));
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, targets.length) }, worker));
    const now = clock.now();
    for (const target of targets) {
      const check = results.get(target.name)!;
      const before = streaks.get(target.name);
      slow.delete(target.name);
      if (check.ok) {
        if (before && before.failures >= options.failureThreshold)
          options.logger.info(`probe ${target.name}: answering again`);
        streaks.delete(target.name);
        const level =
          target.latencyCriticalMs !== undefined && check.latencyMs >= target.latencyCriticalMs
            ? "critical"
            : target.latencyWarningMs !== undefined && check.latencyMs >= target.latencyWarningMs
              ? "warning"
              : undefined;
        if (level) slow.set(target.name, { target, failures: 0, since: now, last: check, slow: level });
        continue;
      }
      const failures = (before?.failures ?? 0) + 1;
      if (failures === options.failureThreshold)
        options.logger.warn(
          `probe ${target.name} (${target.address}): ${check.error ?? "failed"}, ${failures} rounds in a row`,
        );
      streaks.set(target.name, { target, failures, since: before?.since ?? now, last: check });
    }
    // Targets that left the inventory (a Service deleted) are forgotten with it; those only outside this
    // round's window keep their streak until their turn comes again.
    const existing = new Set(all.map((t) => t.name));
    for (const name of [...streaks.keys()]) if (!existing.has(name)) streaks.delete(name);
    options.health.set("probes", "ok");
    options.onRound?.();
  };

  const loop = () => {
    if (stopped) return;
    void round()
      .catch((error: unknown) => options.logger.error(`probe round failed: ${(error as Error).message}`))
      .finally(() => {
        if (!stopped) timer = clock.setTimer(loop, options.intervalMs);
      });
  };

  return {
    round,
    start() {
      // Idempotent, and restartable: the edition can come and go while running.
      if (!stopped && timer) return;
      stopped = false;
      options.health.set("probes", "ok");
      loop();
    },
    stop() {
      stopped = true;
      timer?.();
      timer = undefined;
    },
    latest() {
      const failing = [...streaks.values()]
        .filter((s) => s.failures >= options.failureThreshold)
        .map((s): ProbeStatus => ({ target: s.target, failures: s.failures, since: s.since, last: s.last }));
      return [...failing, ...slow.values()];
    },
  };
}
