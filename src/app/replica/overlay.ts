import { ConfigError, formatProblem } from "../../config/errors.ts";
import type { LoadedConfig } from "../../config/load.ts";
import { CRD_GROUP, CRD_VERSION, type OverlaySource, overlayName } from "../../config/overlay.ts";
import type { HealthRegistry } from "../../health/registry.ts";
import type { KubeConnection } from "../../kube/connection.ts";
import { createInformer, type InformerState } from "../../kube/informer.ts";
import type { Metrics } from "../../metrics.ts";
import type { Cancel, Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import { createWaiters } from "../../runtime/waiters.ts";

/** How long startup waits for the first list of MonConfig objects before it runs on the mounted file, ms. */
const FIRST_SYNC_MS = 10_000;
/** Changes arriving within this time are applied together (one edit often arrives as several events), ms. */
const SETTLE_MS = 1_000;

/** The overlay being watched (crd.enabled): the configuration to start with, and the watch to stop. */
export interface OverlayWatch {
  /** The mounted configuration with the overlays present at startup merged, or the mounted one alone. */
  readonly initial: LoadedConfig;
  stop(): void;
}

/**
 * Watches MonConfig objects in mon's namespace (spec 2.5, 7.2, 7.3; docs/configuration.md "The overlay") and
 * keeps the configuration equal to the mounted file with every overlay merged over it, in name order:
 * - at startup the first list is merged before anything else is built; an overlay invalid then leaves mon on the
 *   mounted configuration with `config-overlay` degraded (`config_overlay_invalid`): it never crash-loops;
 * - a later valid change is handed to `apply` (the daemon restarts its work in process, state kept) and counted
 *   `applied`; an invalid one is logged with `config_overlay_invalid`, counted `rejected`, and the current
 *   configuration stays; a change that leaves the merged configuration equal does nothing;
 * - `crd-watcher` is ok while the MonConfig objects are watched, degraded when the resource is not installed
 *   (`optional_api_unavailable`) or not readable (`optional_permission_denied`); readiness never depends on it.
 */
export async function watchOverlay(options: {
  /** The mounted configuration, no overlay merged. */
  base: LoadedConfig;
  connection: KubeConnection;
  clock: Clock;
  logger: Logger;
  health: HealthRegistry;
  metrics: Metrics;
  apply: (next: LoadedConfig) => Promise<void>;
  firstSyncMs?: number;
  settleMs?: number;
}): Promise<OverlayWatch> {
  const { base, clock, logger, health, metrics } = options;
  const namespace = base.runtime.podNamespace;
  const sources = new Map<string, OverlaySource>();
  const first = createWaiters(clock);
  let started = false;
  let listed = false;
  let settle: Cancel | undefined;
  let applying: Promise<void> = Promise.resolve();
  let current = base;
  health.set("crd-watcher", "pending", { reason: "cache_sync_pending" });
  health.set("config-overlay", "ok");

  const merged = (): LoadedConfig | ConfigError => {
    const list = [...sources.values()].sort((a, b) => a.name.localeCompare(b.name));
    try {
      return base.withOverlays(list);
    } catch (error) {
      if (error instanceof ConfigError) return error;
      throw error;
    }
  };
  const invalid = (error: ConfigError, outcome: string) => {
    health.set("config-overlay", "degraded", { reason: "config_overlay_invalid" });
    logger.error(`config_overlay_invalid: ${formatProblem(error.problem)}; ${outcome}`);
  };
  const names = (loaded: LoadedConfig) => loaded.overlays.map(overlayName).join(", ");
  const warn = (loaded: LoadedConfig) => {
    for (const w of loaded.warnings) if (w.file?.startsWith("MonConfig ")) logger.warn(formatProblem(w));
  };
  const evaluate = () => {
    settle = undefined;
    const next = merged();
    if (next instanceof ConfigError) {
      metrics.configOverlays.inc({ result: "rejected" });
      return invalid(next, "the change is rejected and the current configuration stays");
    }
    health.set("config-overlay", "ok");
    warn(next);
    if (JSON.stringify(next.config) === JSON.stringify(current.config)) return;
    current = next;
    metrics.configOverlays.inc({ result: "applied" });
    logger.info(
      next.overlays.length
        ? `config overlay: applying ${names(next)} (restarting in process; incidents and the outbox are kept)`
        : "config overlay: no MonConfig left; back to the mounted configuration (restarting in process)",
    );
    applying = applying
      .then(() => options.apply(next))
      .catch((error: unknown) => {
        logger.error(`config overlay: applying the configuration failed: ${(error as Error).message}`);
      });
  };
  const informer = createInformer({
    connection: options.connection,
    kind: { kind: "MonConfig", path: `/apis/${CRD_GROUP}/${CRD_VERSION}/namespaces/${namespace}/monconfigs` },
    clock,
    logger,
    onEvent(type, object) {
      const name = String(object.metadata?.name ?? "");
      if (type === "DELETED") sources.delete(name);
      else {
        const spec = (object as { spec?: unknown }).spec;
        sources.set(name, {
          namespace,
          name,
          spec: spec && typeof spec === "object" ? (spec as OverlaySource["spec"]) : {},
        });
      }
      if (started && !settle) settle = clock.setTimer(evaluate, options.settleMs ?? SETTLE_MS);
    },
    onState(state: InformerState) {
      if (state.state === "synced") health.set("crd-watcher", "ok");
      else if (state.state === "failing") {
        health.set("crd-watcher", "degraded", { reason: watcherReason(state.reason) });
        if (state.attempts === 1)
          logger.warn(
            `config overlay: cannot watch MonConfig in ${namespace} (${state.message}); running on the mounted configuration`,
          );
      }
      if (state.state === "syncing") return;
      listed = true;
      first.release();
    },
  });
  informer.start();
  if (!listed) await first.wait(options.firstSyncMs ?? FIRST_SYNC_MS);
  const initial = merged();
  if (initial instanceof ConfigError) invalid(initial, "running on the mounted configuration");
  else {
    warn(initial);
    current = initial;
    if (initial.overlays.length) logger.info(`config overlay: ${names(initial)} merged over the mounted configuration`);
  }
  started = true;
  return {
    initial: current,
    stop() {
      settle?.();
      informer.stop();
    },
  };
}

// --- internal ---

function watcherReason(reason: InformerFailure): string {
  if (reason === "permission_denied") return "optional_permission_denied";
  if (reason === "api_unavailable") return "optional_api_unavailable";
  return reason;
}

type InformerFailure = Extract<InformerState, { state: "failing" }>["reason"];
