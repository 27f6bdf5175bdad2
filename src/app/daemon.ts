import { createMetrics } from "../metrics.ts";
import { settlesWithin } from "../runtime/waiters.ts";
import { VERSION } from "../version.ts";
import type { Daemon, DaemonOptions } from "./daemon-options.ts";
import { createHealth } from "./replica/health.ts";
import { awaitLeadership } from "./replica/leadership.ts";
import { startMemoryGuard } from "./replica/memory-guard.ts";
import { watchOverlay } from "./replica/overlay.ts";
import { createReplicaWatch } from "./replica/watch.ts";
import { serveHealth, statusOf } from "./replica/serve.ts";
import { createWork } from "./work.ts";

export type { Daemon, DaemonOptions } from "./daemon-options.ts";

/** How long each shutdown step other than the drain may take, ms. */
const SHUTDOWN_STEP_MS = 5_000;

/**
 * Starts mon. The composition root (ARCHITECTURE.md): it creates the stages and orders their start and stop,
 * nothing else. Startup fails with ConfigError when a provider cannot be constructed.
 */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { clock, logger, connection, elector } = options;
  const metrics = createMetrics();
  const health = createHealth(options.config.runtime, clock, metrics, options.onFatal);
  const watch = createReplicaWatch(options, { health, metrics, lead: () => work.current() });
  const work = createWork(options, { metrics, health, watch });
  // Health first: a standby is live and available while it waits for the state lock, but not ready.
  let stopping: Promise<void> | undefined;
  const server = await serveHealth(options, health, metrics, {
    status: () => statusOf(work.current()),
    diagnostics: () => work.current()?.diagnostics,
  });
  const soft = options.config.runtime.softMemoryLimitBytes;
  const memory = soft ? startMemoryGuard({ softLimitBytes: soft, clock, logger, metrics }) : undefined;
  // The overlay (spec 2.5) is merged before anything reads the configuration; its later changes restart the
  // work in process.
  let changes: Promise<void> = Promise.resolve();
  const overlay = options.config.config.crd.enabled
    ? await watchOverlay({
        base: options.config,
        connection,
        clock,
        logger,
        health,
        metrics,
        apply: (next) => (changes = changes.then(() => work.reconfigure(next))),
      })
    : undefined;
  const loaded = overlay?.initial ?? options.config;
  work.adopt(loaded);
  watch.prepare(loaded.config);
  logger.info(`mon ${VERSION} watching ${connection.server} (${connection.source})`);
  // A warm standby is Pro (spec 1.9): without a license key a waiting replica lists the cluster only once it leads.
  const warm = !elector || Boolean(loaded.config.license.key) || options.edition === "pro";
  if (warm) watch.start(loaded.config);
  const term = elector ? await awaitLeadership(elector, { health, metrics, logger, cold: !warm }) : undefined;
  watch.start(work.config().config);
  await work.lead(elector && term !== undefined ? () => elector.holds(term) : undefined);
  const running = () => work.running();

  /** Stops informers, flushes delivery for up to `drainMs`, releases the state lock, closes the health server. */
  async function shutdown(drainMs: number): Promise<void> {
    if (elector) health.set("leadership", "failed", { reason: "shutdown", required: true });
    overlay?.stop();
    await changes;
    running().halt();
    watch.stop();
    memory?.stop();
    // Each step has its time; one that overruns is counted and logged, and the shutdown goes on.
    const step = async (what: string, work: Promise<unknown>, ms: number) => {
      if (await settlesWithin(clock, work, ms)) return;
      metrics.shutdownTimeouts.inc();
      logger.warn(`shutdown: ${what} did not stop within ${Math.round(ms / 1000)} s`);
    };
    await step("delivery and the state store", running().finish(drainMs), drainMs + SHUTDOWN_STEP_MS);
    // Released last, after the outbox was flushed or persisted: the next leader resumes what is left.
    if (elector) await step("the state lock release", elector.release(), SHUTDOWN_STEP_MS);
    if (server) await step("the health server", server.close(), SHUTDOWN_STEP_MS);
  }

  return {
    metrics,
    health,
    get delivery() {
      return running().delivery;
    },
    get inventory() {
      return watch.inventory();
    },
    get router() {
      return running().router;
    },
    get usage() {
      return running().usage;
    },
    get probes() {
      return running().probes;
    },
    get license() {
      return running().license;
    },
    config: () => work.config(),
    settled: () => changes,
    edition: () => running().edition(),
    persistentState: () => running().persistentState(),
    healthUrl: () => server?.url,
    waitForSync: (timeoutMs) => watch.waitForSync(timeoutMs),
    evidencePending: () => running().evidencePending(),
    sent: () => running().sent(),
    passNow: () => running().loop.passNow(),
    leadershipLost() {
      health.set("leadership", "failed", { reason: "leadership_lost", required: true });
      metrics.leadershipLosses.inc();
      overlay?.stop();
      running().halt();
      running().delivery.stop();
    },
    stop(drainMs = 5_000) {
      // Once: a second call (a signal during a shutdown) waits for the first.
      stopping ??= shutdown(drainMs);
      return stopping;
    },
  };
}
