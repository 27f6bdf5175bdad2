import type { LoadedConfig } from "../config/load.ts";
import { HealthRegistry, type RuntimeSession } from "../health/registry.ts";
import type { KubeConnection } from "../kube/connection.ts";
import { Inventory } from "../kube/inventory.ts";
import { createMetrics, type Metrics } from "../metrics.ts";
import type { Edition } from "../model/edition.ts";
import type { Elector } from "../leader/elector.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { createWaiters, settlesWithin } from "../runtime/waiters.ts";
import type { DiagnosticsSource } from "../server/diagnostics.ts";
import { type HealthServer, type StatusSource, startHealthServer } from "../server/health-server.ts";
import { communityStatusText, statusReport, statusText } from "../status/report.ts";
import { VERSION } from "../version.ts";
import { watchCluster } from "./cluster-watch.ts";
import { type Carried, type Leader, startLeader } from "./leader.ts";
import { watchOverlay } from "./overlay.ts";
import { startMemoryGuard } from "./memory-guard.ts";
import { awaitLeadership } from "./leadership.ts";
import { type Prepared, prepareStartup } from "./prepare.ts";

/** Everything the daemon needs from outside; tests pass a simulator connection, a fake or real clock, and a stdout sink. */
export interface DaemonOptions {
  readonly config: LoadedConfig;
  readonly connection: KubeConnection;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly stdout?: (text: string) => void;
  /** Overrides `healthCheck.port` (0 picks a free port). */
  readonly healthPort?: number;
  /** Address the health server binds; all interfaces by default (the kubelet probes it from outside the pod). */
  readonly healthHost?: string;
  /** Batching delay of a pass after a change, ms (ARCHITECTURE.md: at most every 250 ms). */
  readonly passDelayMs?: number;
  /** Informer backoff after a failure, ms (default 1000, doubling to 30 s). */
  readonly informerBackoffMs?: number;
  /** Real-time deadlines of a list and of a watch's response headers, ms (defaults 60 s, 30 s; tests of hung connections). */
  readonly requestDeadlinesMs?: { readonly list: number; readonly watchHeaders: number };
  /** Lower bounds on metadata-only kinds than kube/watcher.ts's (tests of the bounds). */
  readonly watchLimits?: { readonly objectCap: number; readonly metadataBudget: number };
  /** Port of the cluster DNS pods' metrics (default 9153); tests point it at a loopback server. */
  readonly dnsMetricsPort?: number;
  /** Providers and outbound client built before connecting (`mon run`); built here when absent. */
  readonly prepared?: Prepared;
  /**
   * Fixes the edition instead of asking the license (unit-level tests of Pro behaviour). Without it the license
   * decides (docs/license.md): `license.key` / MON_LICENSE_KEY against {license_url}.
   */
  readonly edition?: Edition;
  /** The kind of build (src/build-info.ts); tests of telemetry and the update check pass `release`. */
  readonly build?: "release" | "development";
  /**
   * The state lock (`mon run` always takes it; docs/leadership.md). The daemon serves health and waits — a live,
   * available, not ready standby — until it leads, then restores its state and builds its components.
   */
  readonly elector?: Elector;
  /**
   * A required component stayed failed for FATAL_AFTER_MS (spec 3.3: an unrecoverable required startup or
   * cache failure on the active process stops it, so Kubernetes restarts or replaces it). `mon run` exits 1.
   */
  readonly onFatal?: (component: string, reason: string) => void;
}

/** How long a required component may stay failed before the process gives up (onFatal), ms: 5 minutes. */
export const FATAL_AFTER_MS = 5 * 60_000;

/** How long a leader's work delivers what is queued before an in-process restart hands the rest over, ms. */
const RECONFIGURE_DRAIN_MS = 2_000;

/** How long each shutdown step other than the drain may take, ms. */
const SHUTDOWN_STEP_MS = 5_000;

/** A running daemon (`mon run`): what every replica has, and the leader's work once it leads. */
export interface Daemon
  extends Pick<
    Leader,
    "delivery" | "router" | "usage" | "probes" | "license" | "edition" | "persistentState" | "evidencePending" | "sent"
  > {
  readonly metrics: Metrics;
  readonly health: HealthRegistry;
  readonly inventory: Inventory;
  /** The configuration in effect: the mounted file, with the MonConfig overlay merged when crd.enabled. */
  config(): LoadedConfig;
  /** Resolves once every overlay change seen so far has been applied (the in-process restarts are done). */
  settled(): Promise<void>;
  /** Health server URL, when serving. */
  healthUrl(): string | undefined;
  /** Resolves true once every required informer has synced, false after `timeoutMs`. */
  waitForSync(timeoutMs: number): Promise<boolean>;
  /** Runs a pass now (tests and the demo use it to avoid waiting for the batch delay). */
  passNow(): void;
  /** The state lock was lost: stop deciding and delivering at once (`leadership_lost`); the caller exits. */
  leadershipLost(): void;
  /** Stops informers, flushes delivery for up to `drainMs`, closes the health server. */
  stop(drainMs?: number): Promise<void>;
}

/**
 * Starts mon. The composition root (ARCHITECTURE.md): it creates the stages and orders their start and stop,
 * nothing else. Startup fails with ConfigError when a provider cannot be constructed.
 */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { clock, logger, connection } = options;
  const metrics = createMetrics();
  const health = healthRegistry(clock, metrics, options.onFatal);
  health.setSession(sessionOf(options.config.runtime, clock));
  metrics.sources.ready = () => health.ready();
  metrics.sources.uncovered = () => health.report().coverage.reasons as Record<string, number>;
  // Health first: a standby is live and available while it waits for the state lock, but not ready.
  let lead: Leader | undefined;
  // The leader's work once this replica leads (`lead` is unset while it is handed over).
  let leader: Leader | undefined;
  let watching = false;
  let stopping: Promise<void> | undefined;
  const server = await serveHealth(options, health, metrics, {
    status: () => (lead ? statusOf(lead) : undefined),
    diagnostics: () => lead?.diagnostics,
  });
  const soft = options.config.runtime.softMemoryLimitBytes;
  const memory = soft ? startMemoryGuard({ softLimitBytes: soft, clock, logger, metrics }) : undefined;

  // The overlay (spec 2.5) is merged before anything reads the configuration; its later changes restart the
  // work in process (reconfigure below).
  let changes: Promise<void> = Promise.resolve();
  const overlay = options.config.config.crd.enabled
    ? await watchOverlay({
        base: options.config,
        connection,
        clock,
        logger,
        health,
        metrics,
        apply: (next) => (changes = changes.then(() => reconfigure(next))),
      })
    : undefined;
  let loaded = overlay?.initial ?? options.config;
  let prepared = options.prepared ?? prepareStartup(loaded, { logger, clock, stdout: options.stdout });
  if (loaded !== options.config) {
    for (const p of prepared.providers) p.provider.close?.();
    prepared = prepareStartup(loaded, { logger, clock, stdout: options.stdout });
  }

  // Every replica watches (a standby's caches are warm, so a takeover does not relist); only the leader decides.
  let inventory = new Inventory();
  const synced = createWaiters(clock);
  const watch = () =>
    watchCluster({
      config: loaded.config,
      connection,
      clock,
      logger,
      inventory,
      health,
      metrics,
      onChange: () => lead?.loop.schedule(),
      onSynced: () => {
        synced.release();
        lead?.begin();
      },
      onUnwatched: (period) => lead?.unwatched(period),
      ...(options.informerBackoffMs !== undefined ? { informerBackoffMs: options.informerBackoffMs } : {}),
      ...(options.requestDeadlinesMs ? { requestDeadlinesMs: options.requestDeadlinesMs } : {}),
      ...(options.watchLimits ? { limits: options.watchLimits } : {}),
    });
  let watcher = watch();
  logger.info(`mon ${VERSION} watching ${connection.server} (${connection.source})`);
  const elector = options.elector;
  // A warm standby is Pro (spec 1.9): without a license key a waiting replica lists the cluster only once it leads.
  const warm = !elector || Boolean(loaded.config.license.key) || options.edition === "pro";
  const startWatching = () => {
    watching = true;
    watcher.start();
  };
  if (warm) startWatching();
  const term = elector ? await awaitLeadership(elector, { health, metrics, logger, cold: !warm }) : undefined;
  if (!watching) startWatching();

  const leaderOptions = (carried?: Carried) => ({
    daemon: { ...options, config: loaded },
    connection,
    clock,
    logger,
    metrics,
    health,
    prepared,
    inventory,
    synced: () => watcher.requiredSynced(),
    ...(elector && term !== undefined ? { holds: () => elector.holds(term) } : {}),
    ...(carried ? { carried } : {}),
  });
  leader = await startLeader(leaderOptions());
  lead = leader;
  if (watcher.requiredSynced()) leader.begin();
  const running = (): Leader => {
    if (!leader) throw new Error("the daemon does not lead yet");
    return leader;
  };

  /**
   * The in-process restart of a configuration change (the overlay): the leader's work hands over its state,
   * incidents and license; the informers are rebuilt only when what they watch changed; the providers and the
   * leader's work are built anew from `next`. Health, metrics, the state lock and the process stay.
   */
  async function reconfigure(next: LoadedConfig): Promise<void> {
    const rewatch =
      next.config.watch.secrets !== loaded.config.watch.secrets ||
      next.config.resyncSeconds !== loaded.config.resyncSeconds;
    loaded = next;
    const carried = await leader?.handOver(RECONFIGURE_DRAIN_MS);
    lead = undefined;
    if (rewatch && watching) {
      watcher.stop();
      inventory = new Inventory();
      watcher = watch();
      watcher.start();
    }
    if (!carried) for (const p of prepared.providers) p.provider.close?.();
    prepared = prepareStartup(next, { logger, clock, stdout: options.stdout });
    // A standby only takes the configuration: its leader's work is built from it when it leads.
    if (!carried) return;
    leader = await startLeader(leaderOptions(carried));
    lead = leader;
    if (watcher.requiredSynced()) leader.begin();
    logger.info("configuration applied");
  }

  return {
    metrics,
    health,
    get delivery() {
      return running().delivery;
    },
    get inventory() {
      return inventory;
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
    config: () => loaded,
    settled: () => changes,
    edition: () => running().edition(),
    persistentState: () => running().persistentState(),
    healthUrl: () => server?.url,
    waitForSync: (timeoutMs) => (watcher.requiredSynced() ? Promise.resolve(true) : synced.wait(timeoutMs)),
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

  /** Stops informers, flushes delivery for up to `drainMs`, releases the state lock, closes the health server. */
  async function shutdown(drainMs: number): Promise<void> {
    if (elector) health.set("leadership", "failed", { reason: "shutdown", required: true });
    overlay?.stop();
    await changes;
    running().halt();
    watcher.stop();
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
}

// --- internal ---

/**
 * The health registry; a degraded optional component is counted in mon_component_degradations_total, and a
 * required one that stays failed for FATAL_AFTER_MS is handed to `onFatal` (a shutdown's own `failed` aside).
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
      const failing = next.required && next.state === "failed" && next.reason !== "shutdown";
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

/**
 * Where the health server listens (docs/health.md "Address"): `healthHost`, else `healthCheck.address`, else
 * all interfaces in a cluster (in-cluster credentials: the kubelet probes the pod from outside it) and the
 * loopback interface elsewhere (a kubeconfig on a workstation: /status names the cluster's objects), with why.
 */
export function healthAddress(options: Pick<DaemonOptions, "healthHost" | "config" | "connection">): {
  hostname?: string;
  why?: string;
} {
  const given = options.healthHost ?? options.config.config.healthCheck.address;
  if (given) return { hostname: given };
  if (options.connection.source === "in-cluster") return {};
  return { hostname: "127.0.0.1", why: "loopback only: mon runs with a kubeconfig; healthCheck.address opens it" };
}

/** The health server (spec 4.1) unless `healthCheck.enabled` is false. */
async function serveHealth(
  options: DaemonOptions,
  health: HealthRegistry,
  metrics: Metrics,
  sources: { status: StatusSource; diagnostics: () => DiagnosticsSource | undefined },
): Promise<HealthServer | undefined> {
  const settings = options.config.config.healthCheck;
  if (!settings.enabled) return undefined;
  const server = await startHealthServer({
    port: options.healthPort ?? settings.port,
    ...healthAddress(options),
    health,
    metrics: metrics.registry,
    ...(settings.statusEndpoint ? { status: sources.status } : {}),
    ...(settings.diagnostics.enabled && settings.diagnostics.token
      ? { diagnostics: { token: settings.diagnostics.token, source: sources.diagnostics } }
      : {}),
  });
  options.logger.info(`health server listening on ${server.listening}`);
  return server;
}

/** /status of the leader now (spec 4.1): every section in Pro; in Community the text's Edition section. */
function statusOf(leader: Leader): ReturnType<StatusSource> {
  const input = leader.status();
  if (input.edition !== "pro") return { pro: false, text: communityStatusText(input) };
  const report = statusReport(input);
  return { pro: true, json: report, text: statusText(report) };
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
