import type { Config } from "../../config/schema.ts";
import type { HealthRegistry } from "../../health/registry.ts";
import type { KubeConnection } from "../../kube/connection.ts";
import type { Inventory } from "../../kube/inventory.ts";
import { KNOWN_KINDS, kindKey, type WatchTarget } from "../../kube/kinds.ts";
import { createClusterWatcher, type ClusterWatcher, type KindState } from "../../kube/watcher.ts";
import type { Metrics } from "../../metrics.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";

/**
 * Watches the cluster into the Inventory and reports it in health (spec 2.6, 7.3):
 * - `caches` (required): ok once every required kind is synced; pending while syncing; failed with the
 *   reason when a required kind is denied, missing, failing or late. Readiness follows it alone.
 * - `informers-<group>` (one per API group, optional): the worst state of its kinds.
 * - `discovery`: failed (`discovery_failed`) while the API cannot be discovered.
 * - `optional-apis`: degraded (`optional_api_unavailable`) when an optional API is not installed.
 * - coverage: kinds not watched and why.
 */
export function watchCluster(options: {
  config: Config;
  connection: KubeConnection;
  clock: Clock;
  logger: Logger;
  inventory: Inventory;
  health: HealthRegistry;
  metrics: Metrics;
  onChange: () => void;
  onSynced: () => void;
  /**
   * The required caches were synced, then not, and are synced again: mon was blind from `from` to `to`
   * (epoch ms) for `reason` (spec 7.3, the failing kind's). A pass is scheduled too: what changed during the
   * outage is applied by then and must be told within one pass of the heal.
   */
  onUnwatched?: (period: { from: number; to: number; reason: string }) => void;
  informerBackoffMs?: number;
  requestDeadlinesMs?: { readonly list: number; readonly watchHeaders: number };
  syncTimeoutMs?: number;
  /** Lower bounds on metadata-only kinds (tests; kube/watcher.ts OBJECT_CAP, METADATA_BUDGET). */
  limits?: { objectCap: number; metadataBudget: number };
}): ClusterWatcher {
  const { health, metrics } = options;
  const kinds = new Map<string, { target: WatchTarget; state: KindState; reason?: string; since?: number }>();
  const syncedOnce = new Set<string>();
  const reported = new Set<string>();
  health.set("caches", "pending", { reason: "cache_sync_pending", required: true });
  health.set("discovery", "pending", { reason: "cache_sync_pending" });
  // Blind periods: the required caches were synced, then one of them failed (an API outage, a hung watch).
  let everSynced = false;
  let blind: { from: number; reason: string } | undefined;
  const followBlindness = () => {
    const synced = watcher.requiredSynced();
    if (synced && blind) {
      const period = { from: blind.from, to: options.clock.now(), reason: blind.reason };
      blind = undefined;
      health.setUnwatched(period);
      options.onChange();
      options.onUnwatched?.(period);
    } else if (!synced && everSynced && !blind) {
      const failing = [...kinds.values()].find((k) => k.target.required && k.state !== "synced");
      // A stalled watch was blind since its last data, before the silence was noticed.
      blind = { from: failing?.since ?? options.clock.now(), reason: failing?.reason ?? "watcher_failed" };
      health.setUnwatched({ from: blind.from, reason: blind.reason });
    }
    if (synced) everSynced = true;
  };

  const refresh = () => {
    health.setCoverage(watcher.coverage());
    const groups = new Map<string, { state: KindState; reason?: string; required: boolean }[]>();
    for (const k of kinds.values()) {
      const group = k.target.group || "core";
      groups.set(group, [
        ...(groups.get(group) ?? []),
        { state: k.state, ...(k.reason ? { reason: k.reason } : {}), required: k.target.required },
      ]);
    }
    for (const [group, members] of groups) {
      const bad = members.find((m) => m.state === "failing" || m.state === "sync_timeout");
      if (bad)
        health.set(`informers-${group}`, "degraded", {
          reason: bad.state === "sync_timeout" ? "cache_sync_timeout" : (bad.reason ?? "watcher_failed"),
        });
      else if (members.some((m) => m.state === "pending"))
        health.set(`informers-${group}`, "pending", { reason: "cache_sync_pending" });
      else health.set(`informers-${group}`, "ok");
    }
    const required = [...kinds.values()].filter((k) => k.target.required);
    const deniedOrMissing = watcher
      .coverage()
      .find((c) => required.every((k) => kindKey(k.target) !== c.kind) && REQUIRED_KEYS.has(c.kind));
    const failing = required.find((k) => k.state === "failing" || k.state === "sync_timeout");
    if (watcher.requiredSynced()) health.set("caches", "ok", { required: true });
    else if (deniedOrMissing)
      health.set("caches", "failed", {
        reason: deniedOrMissing.reason === "permission_denied" ? "permission_denied" : "api_unavailable",
        required: true,
      });
    else if (failing)
      health.set("caches", "failed", {
        reason:
          failing.state === "sync_timeout"
            ? "cache_sync_timeout"
            : // A kind whose cache never filled, for no more specific reason: its sync failed (spec 7.3).
              !syncedOnce.has(kindKey(failing.target)) && (failing.reason ?? "watcher_failed") === "watcher_failed"
              ? "cache_sync_failed"
              : (failing.reason ?? "watcher_failed"),
        required: true,
      });
    else health.set("caches", "pending", { reason: "cache_sync_pending", required: true });
  };

  const watcher = createClusterWatcher({
    connection: options.connection,
    clock: options.clock,
    logger: options.logger,
    watchSecrets: options.config.watch.secrets,
    resyncMs: options.config.resyncSeconds * 1000,
    ...(options.syncTimeoutMs !== undefined ? { syncTimeoutMs: options.syncTimeoutMs } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.informerBackoffMs !== undefined ? { informerBackoffMs: options.informerBackoffMs } : {}),
    ...(options.requestDeadlinesMs ? { requestDeadlinesMs: options.requestDeadlinesMs } : {}),
    hooks: {
      onEvent: (kind, type, object) => {
        const changed = options.inventory.apply(kind, type, object);
        const unreadable = options.inventory.unreadableObjects().get(changed);
        if (unreadable && !reported.has(changed)) {
          // Counted and named once; the object stays out of the Inventory until it is readable (kube/admit.ts).
          reported.add(changed);
          metrics.informerHandlerPanics.inc();
          options.logger.warn(`informer ${kind}: ${changed} is unreadable (${unreadable}); skipped`);
        }
        options.onChange();
      },
      onHandlerFailure: () => metrics.informerHandlerPanics.inc(),
      onDropped: (_target, inventoryKind) => {
        options.inventory.forget(inventoryKind);
        options.onChange();
        refresh();
      },
      // The kind itself reports the stall as failing (`component_stalled`, blind since its last data) until the
      // relist that follows has synced it again (kube/informer.ts).
      onStall: () => metrics.componentStalls.inc(),
      onProgress: () => refresh(),
      onUnexpectedStop: (target) => {
        metrics.componentUnexpectedStops.inc();
        // Said until the kind's next sync or failure, which the restarted informer reports (spec 7.3).
        health.set(`informers-${target.group || "core"}`, "degraded", { reason: "component_stopped" });
      },
      onDiscoveryFailure: (group, _message, attempt, reason) => {
        if (group) health.set("discovery", "degraded", { reason: "discovery_failed" });
        else {
          // A wrong token is not "discovery failed": the reason says what to fix (spec 7.3).
          health.set("discovery", "failed", { reason });
          health.set("caches", "failed", {
            reason: reason === "discovery_failed" ? "watcher_failed" : reason,
            required: true,
          });
          if (attempt === 1) metrics.sourceUnavailable.inc();
        }
      },
      onWatching: () => {
        if (health.get("discovery")?.state !== "degraded") health.set("discovery", "ok");
        const missing = watcher.optionalMissing();
        if (missing.length) {
          health.set("optional-apis", "degraded", { reason: "optional_api_unavailable" });
          metrics.optionalApiUnavailable.inc(missing.length);
        }
        refresh();
      },
      onKindState: (target, state, failure) => {
        const previous = kinds.get(kindKey(target))?.state;
        kinds.set(kindKey(target), {
          target,
          state,
          ...(failure && failure.state === "failing" ? { reason: failure.reason } : {}),
          ...(failure?.state === "failing" && failure.since !== undefined ? { since: failure.since } : {}),
        });
        if (state === "synced") {
          syncedOnce.add(kindKey(target));
          metrics.watcherSyncs.inc();
          options.inventory.markWatched(target.metadataOnly ? kindKey(target) : target.kind);
        }
        if ((state === "failing" || state === "sync_timeout") && previous !== state) {
          metrics.watcherSyncFailures.inc();
          if (target.required && failure?.state === "failing" && failure.attempts === 1)
            metrics.sourceUnavailable.inc();
        }
        refresh();
        followBlindness();
        if (watcher.requiredSynced()) options.onSynced();
      },
    },
  });
  return watcher;
}

const REQUIRED_KEYS = new Set(KNOWN_KINDS.filter((k) => k.required).map(kindKey));
