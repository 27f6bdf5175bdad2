import type { Config } from "../../config/schema.ts";
import type { HealthRegistry } from "../../health/registry.ts";
import { failingObjects } from "../../detect/run.ts";
import { Inventory } from "../../kube/inventory.ts";
import type { ClusterWatcher } from "../../kube/watcher.ts";
import type { Metrics } from "../../metrics.ts";
import { createWaiters } from "../../runtime/waiters.ts";
import { watchCluster } from "./cluster-watch.ts";
import type { DaemonOptions } from "../daemon-options.ts";
import type { Leader } from "../leader-types.ts";

/** The replica's watch of the cluster: its Inventory and informers, kept warm on a standby. */
export interface ReplicaWatch {
  /** The Inventory the informers fill (a new one after `rewatch`). */
  inventory(): Inventory;
  /** Whether every required informer has synced. */
  requiredSynced(): boolean;
  /**
   * The objects (`Kind/namespace/name`) with a finding when every required informer first synced in this
   * process: what was failing before it watched (model/baseline.ts); undefined before.
   */
  failingAtSync(): ReadonlySet<string> | undefined;
  /** The last period the required caches were blind (spec 7.3), from and to in epoch ms; undefined before any. */
  lastBlind(): { readonly from: number; readonly to: number } | undefined;
  /** Resolves true once every required informer has synced, false after `timeoutMs`. */
  waitForSync(timeoutMs: number): Promise<boolean>;
  /** Builds the informers for what `config` watches, not started (health shows the caches pending); once. */
  prepare(config: Config): void;
  /** Starts the informers (built for `config` when not prepared); once, later calls do nothing. */
  start(config: Config): void;
  /** Rebuilds the informers and the Inventory when what they watch changed (`watch.secrets`, `resyncSeconds`). */
  rewatch(previous: Config, next: Config): void;
  stop(): void;
}

/**
 * Every replica watches (a standby's caches are warm, so a takeover does not relist); only the leader decides:
 * a change schedules the leader's pass, a sync begins its work, a blind period is told by it (`lead()`,
 * undefined while there is no leader's work).
 */
export function createReplicaWatch(
  options: DaemonOptions,
  deps: { health: HealthRegistry; metrics: Metrics; lead: () => Leader | undefined },
): ReplicaWatch {
  const { clock, logger, connection } = options;
  let inventory = new Inventory();
  const synced = createWaiters(clock);
  let atSync: ReadonlySet<string> | undefined;
  let blind: { readonly from: number; readonly to: number } | undefined;
  const watch = (config: Config) =>
    watchCluster({
      config,
      connection,
      clock,
      logger,
      inventory,
      health: deps.health,
      metrics: deps.metrics,
      onChange: () => deps.lead()?.loop.schedule(),
      onSynced: () => {
        // Read once: a standby that leads later sums up only these (a detection, no decision).
        atSync ??= failingObjects(inventory, clock.now());
        synced.release();
        deps.lead()?.begin();
      },
      onUnwatched: (period) => {
        blind = period;
        deps.lead()?.unwatched(period);
      },
      ...(options.informerBackoffMs !== undefined ? { informerBackoffMs: options.informerBackoffMs } : {}),
      ...(options.requestDeadlinesMs ? { requestDeadlinesMs: options.requestDeadlinesMs } : {}),
      ...(options.watchLimits ? { limits: options.watchLimits } : {}),
    });
  let watcher: ClusterWatcher | undefined;
  let running = false;
  const requiredSynced = () => watcher?.requiredSynced() ?? false;
  return {
    inventory: () => inventory,
    requiredSynced,
    failingAtSync: () => atSync,
    lastBlind: () => blind,
    waitForSync: (timeoutMs) => (requiredSynced() ? Promise.resolve(true) : synced.wait(timeoutMs)),
    prepare(config) {
      watcher ??= watch(config);
    },
    start(config) {
      if (running) return;
      running = true;
      watcher ??= watch(config);
      watcher.start();
    },
    rewatch(previous, next) {
      if (next.watch.secrets === previous.watch.secrets && next.resyncSeconds === previous.resyncSeconds) return;
      if (!watcher || !running) return;
      watcher.stop();
      inventory = new Inventory();
      watcher = watch(next);
      watcher.start();
    },
    stop: () => watcher?.stop(),
  };
}
