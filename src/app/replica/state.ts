import type { HealthRegistry } from "../../health/registry.ts";
import type { Metrics } from "../../metrics.ts";
import type { DeliveryStore } from "../../model/dispatch.ts";
import type { Cancel, Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { BlindThread } from "./sight.ts";
import type { LifecycleState } from "../../incident/lifecycle.ts";
import { fromSnapshot, toSnapshot } from "../../incident/snapshot.ts";
import { createDeliveryStore } from "../../state/delivery-store.ts";
import { CAP_SHARE, DEFAULT_CAP_BYTES, compactStore } from "../../state/compaction.ts";
import { openStateStore, type StateStore } from "../../state/store.ts";

/** State key of the heartbeat (epoch ms), written every ALIVE_INTERVAL_MS while mon runs (Pro). */
const ALIVE_KEY = "meta:alive";
/** State key of the lifecycle snapshot (incident/snapshot.ts). */
const LIFECYCLE_KEY = "lifecycle";
/** State key of the blind spots told and not closed yet (app/replica/sight.ts), for the next process to close. */
const BLIND_KEY = "blind-threads";
const ALIVE_INTERVAL_MS = 60_000;
const MAINTENANCE_INTERVAL_MS = 10 * 60_000;

/** The daemon's state (spec 1.9): the store, delivery's records in it, and what the previous process left. */
export interface DaemonState {
  readonly store: StateStore;
  readonly delivery: DeliveryStore;
  /** Epoch ms the previous process was last alive, when it was silent long enough to name an unwatched period. */
  readonly lastAlive?: number;
  /** True when the state file was set aside and recreated at this start. */
  readonly reset: boolean;
  /**
   * Moves the state between the file under the data directory (Pro) and memory (Community) while running, when
   * the license changes the edition: every record goes with it, and the side it leaves is emptied, so a later
   * restart never resumes what this process already sent.
   */
  usePersistent(persistent: boolean): Promise<void>;
  /**
   * The lifecycle state the previous leader or process left in the state file (Pro), so open incidents
   * continue instead of being announced again; undefined in memory, when there is none, or when it was
   * written by another version (logged).
   */
  loadLifecycle(): Promise<LifecycleState | undefined>;
  /** Keeps the lifecycle state in the state file after a pass that changed it (Pro; nothing in memory). */
  saveLifecycle(state: LifecycleState): Promise<void>;
  /** The blind spots the previous process told and did not close (Pro state file); empty otherwise. */
  loadBlindThreads(): Promise<BlindThread[]>;
  /**
   * Keeps the blind spots told and not closed yet in the state file, for the next process to close; false in
   * memory (nothing survives a restart: the threads are closed when mon stops).
   */
  keepBlindThreads(open: readonly BlindThread[]): boolean;
  /** Stops the heartbeat and compaction and closes the store. */
  close(): Promise<void>;
}

/**
 * Opens the state store (spec 1.9): memory without `dataDir`; the file under `dataDir` otherwise, reporting a
 * reset (set aside as `state.db.corrupt`) in metrics, health (`storage_reset`) and the log. A data directory
 * that cannot be used at all falls back to memory with an error: mon keeps watching. A persistent store gets
 * a heartbeat (the next process names the gap) and compaction every 10 minutes (retention, size cap of
 * `volumeLimitBytes` × CAP_SHARE, compaction).
 */
export async function openDaemonState(options: {
  dataDir?: string;
  /** Start in memory even with a data directory (Community); `usePersistent(true)` opens the file later. */
  persistent?: boolean;
  volumeLimitBytes?: number;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  health: HealthRegistry;
}): Promise<DaemonState> {
  const { clock, logger, metrics, health } = options;
  const deps = { logger, metrics, health };
  const store = switchable(await openStore(options.persistent === false ? undefined : options.dataDir, deps));
  const reset = health.report().components.storage?.reason === "storage_reset";
  const previous = await store.get(ALIVE_KEY).catch(() => undefined);
  const lastAlive =
    typeof previous === "number" && clock.now() - previous > 2 * ALIVE_INTERVAL_MS ? previous : undefined;
  const timers: Cancel[] = [];
  const startUpkeep = () => {
    if (timers.length) return;
    const beat = () => {
      void store.set(ALIVE_KEY, clock.now());
      timers[0] = clock.setTimer(beat, ALIVE_INTERVAL_MS);
    };
    beat();
    const capBytes = options.volumeLimitBytes !== undefined ? options.volumeLimitBytes * CAP_SHARE : DEFAULT_CAP_BYTES;
    const maintain = async () => {
      await compactOnce(store, capBytes, deps);
      timers[1] = clock.setTimer(() => void maintain(), MAINTENANCE_INTERVAL_MS);
    };
    void maintain();
  };
  if (store.persistent) startUpkeep();
  const delivery = createDeliveryStore(
    store,
    {
      corrupt: (key) => {
        metrics.storageCorruptRecords.inc();
        logger.warn(`state store: record ${key} could not be decoded; skipped`);
      },
      expired: () => metrics.storageExpired.inc(),
    },
    () => clock.now(),
  );
  let savedLifecycle: string | undefined;
  return {
    store,
    delivery,
    async loadLifecycle() {
      if (!store.persistent) return undefined;
      const value = await store.get(LIFECYCLE_KEY).catch(() => undefined);
      if (value === undefined || value === null) return undefined;
      const restored = fromSnapshot(value);
      if (!restored) logger.warn("state store: the kept incidents were written by another version; starting afresh");
      else logger.info(`state store: ${restored.incidents.size} incident(s) continue from the previous process`);
      return restored;
    },
    async saveLifecycle(lifecycle) {
      if (!store.persistent) return;
      const snapshot = toSnapshot(lifecycle);
      const text = JSON.stringify(snapshot);
      if (text === savedLifecycle) return;
      if (await store.set(LIFECYCLE_KEY, snapshot)) savedLifecycle = text;
    },
    async loadBlindThreads() {
      if (!store.persistent) return [];
      const value = await store.get(BLIND_KEY).catch(() => undefined);
      return Array.isArray(value) ? value.filter(isBlindThread) : [];
    },
    keepBlindThreads(open) {
      if (!store.persistent) return false;
      void store.set(BLIND_KEY, open);
      return true;
    },
    ...(lastAlive !== undefined ? { lastAlive } : {}),
    reset,
    async usePersistent(persistent) {
      if (persistent === store.persistent || (persistent && !options.dataDir)) return;
      const next = persistent ? await openStore(options.dataDir, deps) : await openStateStore();
      const moved = await store.swap(next);
      await store.previous?.close().catch(() => {});
      logger.info(`state store: ${moved} record(s) moved to ${persistent ? "the state file" : "memory"}`);
      if (store.persistent) startUpkeep();
    },
    async close() {
      for (const cancel of timers) cancel?.();
      await store
        .close()
        .catch((error: unknown) => logger.warn(`state store: close failed: ${(error as Error).message}`));
    },
  };
}

// --- internal ---

/** A StateStore whose backing store can be replaced while running; `swap` moves every record to the new one. */
function switchable(initial: StateStore): StateStore & {
  swap(next: StateStore): Promise<number>;
  readonly previous?: StateStore;
} {
  let current = initial;
  let previous: StateStore | undefined;
  return {
    get persistent() {
      return current.persistent;
    },
    get previous() {
      return previous;
    },
    get: (key) => current.get(key),
    set: (key, value) => current.set(key, value),
    remove: (key) => current.remove(key),
    keys: (prefix) => current.keys(prefix),
    size: () => current.size(),
    compact: () => current.compact(),
    close: () => current.close(),
    async swap(next) {
      let moved = 0;
      for (const key of await current.keys("")) {
        const value = await current.get(key);
        if (value !== undefined && (await next.set(key, value))) moved += 1;
        await current.remove(key);
      }
      previous = current;
      current = next;
      return moved;
    },
  };
}

type Deps = { logger: Logger; metrics: Metrics; health: HealthRegistry };

/** A kept blind thread as the state file holds it (anything else there is ignored). */
function isBlindThread(value: unknown): value is BlindThread {
  const t = value as Partial<BlindThread> | null;
  return (
    typeof t?.key === "string" &&
    typeof t.from === "number" &&
    typeof t.reason === "string" &&
    typeof t.what === "string"
  );
}

async function compactOnce(store: StateStore, capBytes: number, { logger, metrics, health }: Deps): Promise<void> {
  try {
    const report = await compactStore(store, capBytes);
    metrics.storageFileBytes.set(report.fileBytes);
    metrics.storageFreeBytes.set(report.freeBytes);
    metrics.storageEvicted.inc(report.evicted);
    if (report.rewritten) metrics.storageRewrites.inc();
    if (report.evicted) {
      logger.warn(
        `state store: ${report.evicted} oldest dead letter(s) evicted to stay under ${Math.round(capBytes / 1048576)} MiB`,
      );
    }
    if (report.overCap) health.set("storage", "degraded", { reason: "storage_over_cap" });
    else if (health.report().components.storage?.reason === "storage_over_cap") health.set("storage", "ok");
  } catch (error) {
    logger.warn(`state store compaction failed: ${(error as Error).message}`);
  }
}

async function openStore(dataDir: string | undefined, { logger, metrics, health }: Deps): Promise<StateStore> {
  if (!dataDir) return openStateStore();
  let failing = false;
  let failedSince = 0;
  try {
    const store = await openStateStore({
      dataDir,
      hooks: {
        reset(reason, detail) {
          metrics.storageResets.inc({ reason });
          health.set("storage", "degraded", { reason: "storage_reset" });
          logger.error(
            `state store: ${dataDir}/state.db ${reason === "unreadable" ? "could not be read" : "has another schema version"} (${detail}); set aside as state.db.corrupt and recreated`,
          );
        },
        writeFailed(key, error) {
          metrics.storageWriteFailures.inc();
          if (key.startsWith("outbox:") || key.startsWith("deadletter:")) metrics.deliveryOutboxWriteFailures.inc();
          // Said once when writes start failing (a full disk fails every write): the rest are counted in
          // mon_storage_write_failures_total and summed up when writes succeed again (issue 30).
          if (failing) {
            failedSince += 1;
            return;
          }
          // What could not be written lives on in memory only: a restart would lose it, and /health says so.
          health.set("storage", "degraded", { reason: "persistence_write_failed" });
          failing = true;
          failedSince = 1;
          logger.warn(
            `state store: writing ${key} failed: ${error.message} (kept in memory; further failures are counted in mon_storage_write_failures_total, not logged)`,
          );
        },
        wrote() {
          if (!failing) return;
          failing = false;
          health.set("storage", "ok");
          logger.info(`state store: writes succeed again (${failedSince} failed meanwhile)`);
        },
      },
    });
    if (!health.report().components.storage) health.set("storage", "ok");
    logger.info(`state store: ${dataDir}/state.db`);
    return store;
  } catch (error) {
    health.set("storage", "degraded", { reason: "persistence_restore_failed" });
    logger.error(`state store: cannot use ${dataDir} (${(error as Error).message}); keeping state in memory only`);
    return openStateStore();
  }
}

/** Says once that a deposed leader's state writes are refused (the process is about to exit). */
export function refusedOnce(logger: Logger): (write: string) => void {
  let said = false;
  return (write) => {
    if (said) return;
    said = true;
    logger.warn(`state store: ${write} refused: this replica no longer holds the state lock`);
  };
}

/**
 * Keeps the incidents as each pass leaves them (docs/leadership.md): written only after the messages their
 * decisions produced are in the outbox (`before`), so a kill in between leaves an incident the next leader
 * announces, never one it thinks was announced while its announcement was lost. Fenced like every other
 * write (`holds`): a deposed leader never overwrites what the new one keeps. One save at a time, in pass order;
 * `saved()` resolves once every save asked for is done. A failed save is logged.
 */
export function createKeeper(
  state: DaemonState,
  before: () => Promise<unknown>,
  holds: (() => boolean) | undefined,
  logger: Logger,
): { keep(lifecycle: LifecycleState): void; saved(): Promise<unknown> } {
  let saving: Promise<unknown> = Promise.resolve();
  return {
    keep(lifecycle) {
      saving = saving
        .then(before)
        .then(() => ((holds?.() ?? true) ? state.saveLifecycle(lifecycle) : undefined))
        .catch((error: unknown) =>
          logger.warn(`state store: keeping the incidents failed: ${(error as Error).message}`),
        );
    },
    saved: () => saving,
  };
}

/** The options of openDaemonState from the runtime environment: the data directory and the volume's limit. */
export function stateOptions(
  loaded: { readonly runtime: { readonly dataDir?: string; readonly volumeLimitBytes?: number } },
  persistent: boolean,
  deps: Deps & { clock: Clock },
): Parameters<typeof openDaemonState>[0] {
  return {
    dataDir: loaded.runtime.dataDir,
    persistent,
    ...(loaded.runtime.volumeLimitBytes !== undefined ? { volumeLimitBytes: loaded.runtime.volumeLimitBytes } : {}),
    ...deps,
  };
}
