import type { HealthRegistry } from "../health/registry.ts";
import type { HttpClient } from "../outbound/client.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";

/** A running heartbeat monitor. */
export interface Heartbeat {
  start(): void;
  stop(): void;
}

/**
 * `heartbeatMonitor` (Pro; spec 2.1, 4.3): a GET to the configured dead man's switch URL at start and every
 * `intervalMs` (10 s per ping). A ping that fails or is answered with a non-2xx status counts in
 * `mon_heartbeat_failures_total` and makes the `heartbeat` component degraded (`heartbeat_failed`) until the
 * next ping succeeds. The URL is a credential: it is never logged.
 */
export function createHeartbeat(options: {
  url: string;
  intervalMs: number;
  http: HttpClient;
  clock: Clock;
  logger: Logger;
  health: HealthRegistry;
  failed(): void;
}): Heartbeat {
  let timer: (() => void) | undefined;
  let stopped = true;
  let failing = false;
  const ping = async () => {
    if (stopped) return;
    let ok = false;
    let detail = "";
    try {
      const answer = await options.http.request({ method: "GET", url: options.url, timeoutMs: 10_000 });
      ok = answer.status >= 200 && answer.status < 300;
      detail = `HTTP ${answer.status}`;
    } catch (error) {
      detail = (error as Error).message.split("\n")[0] ?? "network error";
    }
    if (ok) {
      if (failing) options.logger.info("heartbeat: pings answered again");
      failing = false;
      options.health.set("heartbeat", "ok");
    } else {
      options.failed();
      if (!failing) options.logger.warn(`heartbeat: the ping failed (${detail})`);
      failing = true;
      options.health.set("heartbeat", "degraded", { reason: "heartbeat_failed" });
    }
    if (!stopped && options.intervalMs > 0) timer = options.clock.setTimer(() => void ping(), options.intervalMs);
  };
  return {
    start() {
      if (!stopped) return;
      stopped = false;
      void ping();
    },
    stop() {
      stopped = true;
      timer?.();
    },
  };
}
