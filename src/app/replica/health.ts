import type { LoadedConfig } from "../../config/load.ts";
import { HealthRegistry, type RuntimeSession } from "../../health/registry.ts";
import type { Metrics } from "../../metrics.ts";
import type { Clock } from "../../runtime/clock.ts";
import { VERSION } from "../../version.ts";

/** How long a required component may stay failed before the process gives up (onFatal), ms: 5 minutes. */
export const FATAL_AFTER_MS = 5 * 60_000;

/**
 * The health of this process (spec 4.1, 3.3): the registry with its fatal timer, the runtime session, and the
 * metrics read from it (`mon_ready`, coverage gaps by reason).
 */
export function createHealth(
  runtime: LoadedConfig["runtime"],
  clock: Clock,
  metrics: Metrics,
  onFatal?: (component: string, reason: string) => void,
): HealthRegistry {
  const health = healthRegistry(clock, metrics, onFatal);
  health.setSession(sessionOf(runtime, clock));
  metrics.sources.ready = () => health.ready();
  metrics.sources.uncovered = () => health.report().coverage.reasons as Record<string, number>;
  return health;
}

/**
 * Reasons that say the API server cannot be reached or answers nothing (issue 53): a required component failed
 * for one of them waits for the server, however long, instead of stopping the process.
 */
const OUTAGE: ReadonlySet<string> = new Set(["api_unavailable", "timeout", "component_stalled"]);

/**
 * The health registry; a degraded optional component is counted in mon_component_degradations_total, and a
 * required one that stays failed for FATAL_AFTER_MS is handed to `onFatal` (a shutdown's own `failed` and an
 * API server outage aside).
 */
function healthRegistry(
  clock: Clock,
  metrics: Metrics,
  onFatal?: (component: string, reason: string) => void,
): HealthRegistry {
  const fatal = new Map<string, () => void>();
  return new HealthRegistry(
    () => clock.now(),
    (name, next, previous) => {
      if (next.state !== previous?.state && next.state === "degraded" && !next.required)
        metrics.componentDegradations.inc();
      // The control plane down is no reason to exit: a fresh process would see the same (issue 53).
      const failing =
        next.required && next.state === "failed" && next.reason !== "shutdown" && !OUTAGE.has(next.reason ?? "");
      if (!failing) {
        fatal.get(name)?.();
        fatal.delete(name);
      } else if (onFatal && !fatal.has(name))
        fatal.set(
          name,
          clock.setTimer(() => onFatal(name, next.reason ?? "component_failed"), FATAL_AFTER_MS),
        );
    },
  );
}

/** This process's runtime session (spec 8): the pod, POD_UID and NODE_NAME when set, start time, version. */
function sessionOf(runtime: LoadedConfig["runtime"], clock: Clock): RuntimeSession {
  return {
    pod: runtime.podName,
    ...(runtime.podUid ? { podUid: runtime.podUid } : {}),
    ...(runtime.nodeName ? { node: runtime.nodeName } : {}),
    startedAt: new Date(clock.now()).toISOString(),
    version: VERSION,
  };
}
