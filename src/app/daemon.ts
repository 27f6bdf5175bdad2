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
import type { Carried } from "./leader-types.ts";
import type { Elector } from "../leader/elector.ts";

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
  let term = elector ? await awaitLeadership(elector, { health, metrics, logger, cold: !warm }) : undefined;
  watch.start(work.config().config);
  const first = term;
  await work.lead(elector && first !== undefined ? () => elector.holds(first) : undefined);
  const running = () => work.running();
  // What the last term left while this replica stands by after losing the state lock (issue 53).
  let deposed: Carried | undefined;
  const campaign = async (elector: Elector, lost: number | undefined) => {
    const next = await awaitLeadership(elector, { health, metrics, logger, lost: true });
    if (stopping) return;
    // Its next term with nobody's between (the transitions counted once) keeps what it had: nothing was told
    // meanwhile. After another leader it reloads the state store, as a new process would.
    const carried = deposed;
    deposed = undefined;
    const keep = carried && lost !== undefined && next === lost + 1 ? carried : undefined;
    if (carried && !keep) await carried.state.close();
    term = next;
    await work.lead(() => elector.holds(next), keep);
    logger.info(`leading again (term ${next}${keep ? "" : ", state reloaded: another replica led meanwhile"})`);
  };

  /** Stops informers, flushes delivery for up to `drainMs`, releases the state lock, closes the health server. */
  async function shutdown(drainMs: number): Promise<void> {
    if (elector) health.set("leadership", "failed", { reason: "shutdown", required: true });
    overlay?.stop();
    await changes;
    work.current()?.halt();
    watch.stop();
    memory?.stop();
    // Each step has its time; one that overruns is counted and logged, and the shutdown goes on.
    const step = async (what: string, work: Promise<unknown>, ms: number) => {
      if (await settlesWithin(clock, work, ms)) return;
      metrics.shutdownTimeouts.inc();
      logger.warn(`shutdown: ${what} did not stop within ${Math.round(ms / 1000)} s`);
    };
    await step("delivery and the state store", work.finish(drainMs, deposed), drainMs + SHUTDOWN_STEP_MS);
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
      metrics.leadershipLosses.inc();
      if (stopping) return;
      deposed = work.depose() ?? deposed;
      if (!elector) return;
      logger.warn("leadership_lost: standing by; watching on and campaigning for the state lock again");
      // A next term that cannot start its work is a failure a fresh process may do better with: required and
      // failed, it stops the process after 5 minutes (spec 3.3).
      campaign(elector, term).catch((error: unknown) => {
        logger.error(`leadership: the next term could not start: ${(error as Error).message}`);
        health.set("leadership", "failed", { reason: "leadership_lost", required: true });
      });
    },
    stop(drainMs = 5_000) {
      // Once: a second call (a signal during a shutdown) waits for the first.
      stopping ??= shutdown(drainMs);
      return stopping;
    },
  };
}
