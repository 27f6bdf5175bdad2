import { createAuditLog } from "../audit/log.ts";
import type { LoadedConfig } from "../config/load.ts";
import { createDelivery, type Delivery } from "../deliver/delivery.ts";
import { HealthRegistry } from "../health/registry.ts";
import { auditEntries } from "../incident/audit.ts";
import type { KubeConnection } from "../kube/connection.ts";
import { Inventory } from "../kube/inventory.ts";
import { createMetrics, type Metrics } from "../metrics.ts";
import type { Edition } from "../model/edition.ts";
import type { Elector } from "../leader/elector.ts";
import type { LicenseManager } from "../license/manager.ts";
import { renderStartupNotice } from "../notify/notice.ts";
import { redact } from "../notify/redact.ts";
import { createProbeRunner, type ProbeRunner } from "../probe/runner.ts";
import { createRouter, type Router } from "../route/router.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { createWaiters } from "../runtime/waiters.ts";
import { type HealthServer, startHealthServer } from "../server/health-server.ts";
import { fencedStore } from "../state/fenced.ts";
import { VERSION } from "../version.ts";
import { watchCluster } from "./cluster-watch.ts";
import { deliveryProviders } from "./delivery-providers.ts";
import { createCallHome } from "./callhome.ts";
import { awaitLeadership } from "./leadership.ts";
import { startEdition } from "./license.ts";
import { createLogEvidence } from "./log-evidence.ts";
import { createObservers, type Observers } from "./observe.ts";
import { createOutgoing } from "./outgoing.ts";
import { createPassLoop, type PassLoop } from "./pass-loop.ts";
import { type Prepared, prepareStartup } from "./prepare.ts";
import { openDaemonState } from "./state.ts";
import { createUsageSources, type UsageSources } from "./usage-sources.ts";

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
}

/** A running daemon (`mon run`). */
export interface Daemon {
  readonly metrics: Metrics;
  readonly health: HealthRegistry;
  readonly delivery: Delivery;
  readonly inventory: Inventory;
  readonly router: Router;
  /** Kubelet statistics and the metrics API. */
  readonly usage: UsageSources;
  /** Active probes (`activeProbeMonitor.enabled`; they run while the edition is Pro). */
  readonly probes?: ProbeRunner;
  /** The license, unless the edition was fixed. */
  readonly license?: LicenseManager;
  /** The edition now (it changes with the license while running). */
  edition(): Edition;
  /** True while the state lives in the state file (Pro), false in memory (Community). */
  persistentState(): boolean;
  /** Health server URL, when serving. */
  healthUrl(): string | undefined;
  /** Resolves true once every required informer has synced, false after `timeoutMs`. */
  waitForSync(timeoutMs: number): Promise<boolean>;
  /** Runs a pass now (tests and the demo use it to avoid waiting for the batch delay). */
  passNow(): void;
  /** True while evidence for a deferred finding (a crashed container's log) is being read. */
  evidencePending(): boolean;
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
  const { config: loaded, clock, logger, connection } = options;
  const config = loaded.config;
  const cluster = config.app.clusterName;
  const metrics = createMetrics();
  const health = healthRegistry(clock, metrics);
  const prepared = options.prepared ?? prepareStartup(loaded, { logger, clock, stdout: options.stdout });
  const { runtime } = loaded;
  health.setSession({
    pod: runtime.podName,
    ...(runtime.podUid ? { podUid: runtime.podUid } : {}),
    ...(runtime.nodeName ? { node: runtime.nodeName } : {}),
    startedAt: new Date(clock.now()).toISOString(),
    version: VERSION,
  });
  // Health first: a standby is live and available while it waits for the state lock, but not ready.
  const server = await serveHealth(options, health, metrics);

  // Every replica watches (a standby's caches are warm, so a takeover does not relist); only the leader decides.
  const inventory = new Inventory();
  const synced = createWaiters(clock);
  let leader: { loop: PassLoop; begin(): void } | undefined;
  const watcher = watchCluster({
    config,
    connection,
    clock,
    logger,
    inventory,
    health,
    metrics,
    onChange: () => leader?.loop.schedule(),
    onSynced: () => {
      synced.release();
      leader?.begin();
    },
    ...(options.informerBackoffMs !== undefined ? { informerBackoffMs: options.informerBackoffMs } : {}),
  });
  logger.info(`mon ${VERSION} watching ${connection.server} (${connection.source})`);
  watcher.start();
  const elector = options.elector;
  const term = elector ? await awaitLeadership(elector, { health, metrics, logger }) : undefined;

  // The license decides the edition before the components are built (spec 4.3); it can change while running.
  const { control, license } = await startEdition({
    ...(options.edition ? { fixed: options.edition } : {}),
    loaded,
    connection,
    http: prepared.http,
    clock,
    logger,
    metrics,
    inactive: () => router.inactive,
  });
  const pro = () => control.current() === "pro";
  // A state file in Pro, memory in Community; the state moves when the edition changes (docs/license.md).
  const state = await openDaemonState({
    dataDir: loaded.runtime.dataDir,
    persistent: pro(),
    ...(loaded.runtime.volumeLimitBytes !== undefined ? { volumeLimitBytes: loaded.runtime.volumeLimitBytes } : {}),
    clock,
    logger,
    metrics,
    health,
  });
  // Fencing: only the holder of the state lock under the term it led with may write the outbox or send.
  const holds = elector && term !== undefined ? () => elector.holds(term) : undefined;
  const records = holds ? fencedStore(state.delivery, holds, refusedOnce(logger)) : state.delivery;
  const router = createRouter({
    providers: prepared.providers.map((p) => ({ name: p.definition.name, kind: p.definition.kind, ...p.common })),
    communityProvider: config.app.communityProvider,
    edition: () => control.current(),
    // Who holds each conversation survives a restart (Pro state file), so the resolve goes where the announcement went.
    onConversation: (id, providers) =>
      void (providers ? records.saveRoute(id, providers) : records.removeRoute(id)).catch((error: unknown) =>
        logger.warn(`state store: recording the providers of ${id} failed: ${(error as Error).message}`),
      ),
  });
  const observe = createObservers({ metrics, health, logger, config, router });
  const delivery = createDelivery({
    // Every configured provider: the router decides who receives what in the current edition.
    providers: deliveryProviders(
      prepared.providers,
      prepared.providers.map((p) => p.definition.name),
    ),
    isActive: (name) => router.active.includes(name),
    ...(holds ? { canSend: holds } : {}),
    clock,
    logger,
    hooks: observe.delivery,
    store: records,
    clean: (text) => redact(text).text,
    onJoin: (id, provider) => router.join(id, provider),
  });
  router.restore(await records.loadRoutes());
  const resumed = await delivery.restore();
  if (resumed > 0) logger.info(`resumed ${resumed} message(s) left in the outbox by the previous process`);

  const audit = auditFor(config, options, observe);
  const outgoing = createOutgoing({ router, delivery, metrics, logger, cluster });
  const callHome = createCallHome({
    loaded,
    connection,
    http: prepared.http,
    store: state.store,
    clock,
    logger,
    metrics,
    health,
    edition: () => control.current(),
    notice: (sentence) => control.notice(sentence, "Upgrade"),
    ...(options.build ? { build: options.build } : {}),
  });
  const schedule = () => leader?.loop.schedule();
  const logs = createLogEvidence({ connection, clock, metrics, onReady: schedule });
  const usage = createUsageSources({
    connection,
    inventory,
    clock,
    logger,
    health,
    metrics,
    insecureSkipVerify: config.kubelet.insecureSkipVerify,
    onRound: schedule,
    ...(options.dnsMetricsPort !== undefined ? { dnsMetricsPort: options.dnsMetricsPort } : {}),
  });
  // Active probes are Pro and opt-in (spec 2.3): built when enabled, running while the edition is Pro.
  const probes = config.activeProbeMonitor.enabled
    ? probesFor(config.activeProbeMonitor, { inventory, clock, logger, health, onRound: schedule })
    : undefined;
  let started = false;
  control.attach(outgoing);
  // What follows the edition when the license changes it.
  control.onSwitch((edition) => {
    if (edition === "pro" && started) probes?.start();
    if (edition !== "pro") probes?.stop();
    callHome.editionChanged(edition);
    void state.usePersistent(edition === "pro");
    observe.editionChanged();
  });
  const restored = await state.loadLifecycle();
  const loop = createPassLoop({
    clock,
    inventory,
    cluster,
    rules: () => control.rules(),
    evidence: logs,
    ready: () => watcher.requiredSynced(),
    usage: () => usageView(usage, probes),
    onResult(result, now) {
      observe.pass(result);
      if (audit && pro())
        for (const entry of auditEntries(result.decisions, result.skipped, cluster)) audit.write(entry);
      outgoing.send(result.messages, now);
    },
    onLag: (seconds) => metrics.decisionLag.observe(seconds),
    nextWakeAt: () => delivery.nextOverflowAt(),
    ...(restored ? { initial: restored } : {}),
    // Fenced like every other write: a deposed leader never overwrites what the new one keeps.
    onState: (lifecycle) => void ((holds?.() ?? true) && state.saveLifecycle(lifecycle)),
    ...(options.passDelayMs !== undefined ? { delayMs: options.passDelayMs } : {}),
  });
  // The leader's work starts at the first sync after it leads (at once when its caches are already warm).
  leader = {
    loop,
    begin() {
      loop.schedule();
      if (started) return;
      started = true;
      usage.start();
      if (pro()) probes?.start();
      const notice = renderStartupNotice(VERSION, cluster, clock.now(), {
        ...(state.lastAlive !== undefined ? { lastAlive: state.lastAlive } : {}),
        ...(state.reset ? { stateReset: true } : {}),
      });
      if (!config.app.disableStartupMessage) outgoing.notice(notice, clock.now());
      control.ready();
      callHome.started();
    },
  };
  if (watcher.requiredSynced()) leader.begin();
  // Stops deciding, sending and calling out; what is still queued stays in the outbox.
  const halt = () => {
    license?.stop();
    callHome.stop();
    loop.stop();
    usage.stop();
    probes?.stop();
  };

  return {
    metrics,
    health,
    delivery,
    inventory,
    router,
    usage,
    ...(probes ? { probes } : {}),
    ...(license ? { license } : {}),
    edition: () => control.current(),
    persistentState: () => state.store.persistent,
    healthUrl: () => server?.url,
    waitForSync: (timeoutMs) => (watcher.requiredSynced() ? Promise.resolve(true) : synced.wait(timeoutMs)),
    evidencePending: () => logs.busy(),
    passNow: () => loop.passNow(),
    leadershipLost() {
      health.set("leadership", "failed", { reason: "leadership_lost", required: true });
      metrics.leadershipLosses.inc();
      halt();
      delivery.stop();
    },
    async stop(drainMs = 5_000) {
      halt();
      watcher.stop();
      await outgoing.settled();
      if (!(await delivery.drain(drainMs))) observe.deferred(router.active.map((p) => [p, delivery.depth(p)]));
      delivery.stop();
      for (const p of prepared.providers) p.provider.close?.();
      await audit?.flush();
      await state.close();
      await elector?.release();
      await server?.close();
    },
  };
}

// --- internal ---

/** The active probe runner (Pro, spec 2.3) from `activeProbeMonitor`. */
function probesFor(
  settings: LoadedConfig["config"]["activeProbeMonitor"],
  deps: Omit<Parameters<typeof createProbeRunner>[0], "settings" | "intervalMs" | "timeoutMs" | "failureThreshold">,
): ProbeRunner {
  return createProbeRunner({
    settings,
    intervalMs: settings.intervalSeconds * 1000,
    timeoutMs: settings.timeoutSeconds * 1000,
    failureThreshold: settings.failureThreshold,
    ...deps,
  });
}

/** The latest usage rounds and probe results, as the pass reads them. */
function usageView(usage: UsageSources, probes: ProbeRunner | undefined) {
  const latest = usage.latest();
  const probed = probes?.latest();
  return {
    ...(latest.kubelet ? { kubelet: latest.kubelet.summaries } : {}),
    ...(latest.apiServer ? { apiServer: latest.apiServer } : {}),
    ...(latest.apiRequests ? { apiRequests: latest.apiRequests } : {}),
    ...(latest.dnsResponses ? { dnsResponses: latest.dnsResponses } : {}),
    ...(probed?.length ? { probes: probed } : {}),
  };
}

/** The health registry; a degraded optional component is counted in mon_component_degradations_total. */
function healthRegistry(clock: Clock, metrics: Metrics): HealthRegistry {
  return new HealthRegistry(
    () => clock.now(),
    (_name, next, previous) => {
      if (next.state !== previous?.state && next.state === "degraded" && !next.required)
        metrics.componentDegradations.inc();
    },
  );
}

/** The health server (spec 4.1) unless `healthCheck.enabled` is false. */
async function serveHealth(
  options: DaemonOptions,
  health: HealthRegistry,
  metrics: Metrics,
): Promise<HealthServer | undefined> {
  const settings = options.config.config.healthCheck;
  if (!settings.enabled) return undefined;
  const server = await startHealthServer({
    port: options.healthPort ?? settings.port,
    hostname: options.healthHost,
    health,
    metrics: metrics.registry,
  });
  options.logger.info(`health server on ${server.url}`);
  return server;
}

/** The audit log (Pro, spec 2.1): one JSON entry per incident decision, written while the edition is Pro. */
function auditFor(config: LoadedConfig["config"], options: DaemonOptions, observe: Observers) {
  if (!config.auditLog.enabled) return undefined;
  return createAuditLog({
    output: config.auditLog.output,
    stdout: options.stdout ?? ((t) => process.stdout.write(t)),
    hooks: { dropped: (count, why, error) => observe.auditDropped(count, why, config.auditLog.output, error) },
  });
}

/** Says once that a deposed leader's state writes are refused (the process is about to exit). */
function refusedOnce(logger: Logger): (write: string) => void {
  let said = false;
  return (write) => {
    if (said) return;
    said = true;
    logger.warn(`state store: ${write} refused: this replica no longer holds the state lock`);
  };
}
