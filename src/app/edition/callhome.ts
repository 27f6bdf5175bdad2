import { BUILD } from "../../build-info.ts";
import { createHeartbeat, type Heartbeat } from "../../callhome/heartbeat.ts";
import { createTelemetry, type Telemetry, telemetryDecision } from "../../callhome/telemetry.ts";
import { telemetryStore } from "../../callhome/telemetry-store.ts";
import { checkForUpdate } from "../../callhome/update-check.ts";
import type { LoadedConfig } from "../../config/load.ts";
import type { HealthRegistry } from "../../health/registry.ts";
import { clusterUuid } from "../../kube/cluster-uuid.ts";
import type { KubeConnection } from "../../kube/connection.ts";
import type { Metrics } from "../../metrics.ts";
import type { Edition } from "../../model/edition.ts";
import type { HttpClient } from "../../outbound/client.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { StateStore } from "../../state/store.ts";
import { VERSION } from "../../version.ts";

/** mon's own outbound calls besides the license: telemetry, the update check, the heartbeat (docs/telemetry.md). */
export interface CallHome {
  /** The informers synced: the update check runs, telemetry and the heartbeat start. */
  started(): void;
  /** The edition changed: the heartbeat (Pro) starts or stops. */
  editionChanged(edition: Edition): void;
  stop(): void;
}

/**
 * Builds the calls of spec 4.3, 8 and 9.4 through the one outbound client, and logs the telemetry line of
 * spec 8 (the endpoint, and `enabled` or the skip reason). `build` is this binary's (src/build-info.ts):
 * development builds send no telemetry and check for no update.
 */
export function createCallHome(options: {
  loaded: LoadedConfig;
  connection: KubeConnection;
  http: HttpClient;
  store: StateStore;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  health: HealthRegistry;
  edition: () => Edition;
  notice: (sentence: string) => void;
  build?: "release" | "development";
}): CallHome {
  const { loaded, clock, logger, metrics } = options;
  const config = loaded.config;
  const build = options.build ?? BUILD;
  const endpoints = loaded.runtime.endpoints;
  const store = telemetryStore(options.store, loaded.runtime.dataDir);
  const decision = telemetryDecision({
    enabled: config.telemetry.enabled,
    disabledByEnv: loaded.runtime.telemetry === false,
    build,
    ci: loaded.runtime.ci,
    stateStore: store !== undefined,
  });
  logger.info(
    `telemetry: ${endpoints.telemetry}/telemetry/heartbeat ${decision.send ? "enabled" : `skipped (${decision.reason})`}`,
  );
  const telemetry: Telemetry | undefined =
    decision.send && store
      ? createTelemetry({
          url: endpoints.telemetry,
          http: options.http,
          store,
          clock,
          logger,
          version: VERSION,
          clusterUuid: async () => (await clusterUuid(options.connection)).uuid,
          metrics: {
            attempts: () => metrics.telemetryAttempts.inc(),
            successes: () => metrics.telemetrySuccesses.inc(),
            retries: () => metrics.telemetryRetries.inc(),
            failures: (reason) => metrics.telemetryFailures.inc({ reason }),
          },
        })
      : undefined;
  const hb = config.heartbeatMonitor;
  const heartbeat: Heartbeat | undefined =
    hb.enabled && hb.url
      ? createHeartbeat({
          url: hb.url,
          intervalMs: hb.interval * 1000,
          http: options.http,
          clock,
          logger,
          health: options.health,
          failed: () => metrics.heartbeatFailures.inc(),
        })
      : undefined;
  for (const reason of ["state_read", "invalid_identity", "network", "http_status", "state_write"])
    metrics.telemetryFailures.inc({ reason }, 0);
  let running = false;
  return {
    started() {
      if (running) return;
      running = true;
      telemetry?.start();
      if (options.edition() === "pro") heartbeat?.start();
      // Asked for, but with nowhere to ping: said, not silently skipped (spec 7.3 source_not_configured).
      if (options.edition() === "pro" && hb.enabled && !hb.url) {
        options.health.set("heartbeat", "degraded", { reason: "source_not_configured" });
        logger.warn("heartbeatMonitor.enabled is on but heartbeatMonitor.url is not set: no heartbeat is sent");
      }
      if (!config.upgrader.disableUpdateCheck && build === "release")
        void checkForUpdate({ url: endpoints.update, http: options.http, version: VERSION, logger }).then((latest) => {
          if (latest) options.notice(`mon ${latest} is available; this cluster runs mon ${VERSION}.`);
        });
    },
    editionChanged(edition) {
      if (!running) return;
      if (edition === "pro") heartbeat?.start();
      else heartbeat?.stop();
    },
    stop() {
      telemetry?.stop();
      heartbeat?.stop();
    },
  };
}
