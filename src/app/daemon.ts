import type { LoadedConfig } from "../config/load.ts";
import { createDelivery, type Delivery } from "../deliver/delivery.ts";
import { HealthRegistry } from "../health/registry.ts";
import { emptyLifecycle, type LifecycleState } from "../incident/lifecycle.ts";
import type { KubeConnection } from "../kube/connection.ts";
import { Inventory } from "../kube/inventory.ts";
import { watchCluster } from "./cluster-watch.ts";
import { createUsageSources, type UsageSources } from "./usage-sources.ts";
import { createProbeRunner, type ProbeRunner } from "../probe/runner.ts";
import { createLogEvidence } from "./log-evidence.ts";
import { createMetrics, type Metrics } from "../metrics.ts";
import { prepareStartup, type Prepared } from "./prepare.ts";
import type { Edition } from "../model/edition.ts";
import { prepareRules } from "../incident/suppress.ts";
import { createRouter, type Router } from "../route/router.ts";
import { parseDuration } from "../config/duration.ts";
import { openStateStore, type StateStore } from "../state/store.ts";
import { createDeliveryStore } from "../state/delivery-store.ts";
import { CAP_SHARE, DEFAULT_CAP_BYTES, maintainStore } from "../state/maintenance.ts";
import type { Job } from "../model/job.ts";
import type { Cancel, Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { createWaiters } from "../runtime/waiters.ts";
import { startHealthServer, type HealthServer } from "../server/health-server.ts";
import { VERSION } from "../version.ts";
import { runPass } from "./pipeline.ts";
import { auditEntries } from "../incident/audit.ts";
import { isUnexplained } from "../incident/unexplained.ts";
import { servingServices } from "../detect/network.ts";
import { severityOverrides } from "../incident/overrides.ts";
import { createAuditLog, type AuditLog } from "../audit/log.ts";
import { scrubMessage } from "../notify/scrub.ts";
import { renderOverflowDigest } from "../notify/summary.ts";
import { redact } from "../notify/redact.ts";
import { renderStartupNotice } from "../notify/notice.ts";

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
  /** The edition (spec 1.10); Community unless a test injects Pro. No user-facing switch turns Pro on. */
  readonly edition?: Edition;
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
  /** Active probes (Pro, when `activeProbeMonitor.enabled`). */
  readonly probes?: ProbeRunner;
  /** Health server URL, when serving. */
  healthUrl(): string | undefined;
  /** Resolves true once every required informer has synced, false after `timeoutMs`. */
  waitForSync(timeoutMs: number): Promise<boolean>;
  /** Runs a pass now (tests and the demo use it to avoid waiting for the batch delay). */
  passNow(): void;
  /** True while evidence for a deferred finding (a crashed container's log) is being read. */
  evidencePending(): boolean;
  /** Stops informers, flushes delivery for up to `drainMs`, closes the health server. */
  stop(drainMs?: number): Promise<void>;
}

/**
 * Starts mon: builds providers (startup fails with ConfigError if one cannot be constructed), the health
 * server, one informer per watched kind feeding the Inventory, and the pass loop. The composition root:
 * the only module that wires the stages together (ARCHITECTURE.md).
 */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { config: loaded, clock, logger } = options;
  const config = loaded.config;
  const cluster = config.app.clusterName;

  const metrics = createMetrics();
  const health = new HealthRegistry(
    () => clock.now(),
    (_name, next, previous) => {
      if (next.state === previous?.state) return;
      if (next.state === "degraded" && !next.required) metrics.componentDegradations.inc();
    },
  );
  if (config.app.insecureSkipTLSVerify)
    logger.warn("app.insecureSkipTLSVerify is on: outbound HTTPS certificates are not verified");
  if (config.kubelet.insecureSkipVerify)
    logger.warn(
      "kubelet.insecureSkipVerify is on: the ServiceAccount token is sent to kubelets whose certificates are not verified",
    );
  const built =
    options.prepared ??
    prepareStartup(loaded, { logger, clock, ...(options.stdout ? { stdout: options.stdout } : {}) });
  const edition: Edition = options.edition ?? "community";
  let persistRoute: (incidentId: string, providers: readonly string[] | undefined) => void = () => {};
  const router = createRouter({
    providers: built.providers.map((p) => ({
      name: p.definition.name,
      kind: p.definition.kind,
      hourlyBudget: p.common.hourlyBudget,
      ...(p.common.routes ? { routes: p.common.routes } : {}),
      ...(p.common.fallback ? { fallback: p.common.fallback } : {}),
    })),
    communityProvider: config.app.communityProvider,
    edition,
    // Who holds each conversation survives a restart (Pro state file), so the resolve goes where the announcement went.
    onConversation: (incidentId, providers) => persistRoute(incidentId, providers),
    onFold: (provider, message) => {
      metrics.deliveryBudgetFolded.inc();
      logger.info(
        `${provider}: hourly budget reached; ${message.action} ${message.incidentId} goes into the overflow digest`,
      );
    },
  });
  if (router.warning) logger.warn(router.warning);
  health.setProviders(router.active, router.inactive);
  if (router.active.length === 0)
    logger.warn("no alert provider is configured: incidents are detected and counted but delivered nowhere");
  else
    logger.info(
      `delivering to ${router.active.join(", ")}${router.inactive.length ? ` (inactive in Community: ${router.inactive.join(", ")})` : ""}`,
    );

  const senders = new Map(
    built.providers
      .filter((p) => router.active.includes(p.definition.name))
      .map((p) => [p.definition.name, p.provider] as const),
  );
  for (const name of senders.keys()) health.set(`provider-${name}`, "ok");
  // A message a provider failed for good goes to its fallback when there is one (spec 6 item 5); otherwise
  // it is lost, and counted so.
  const handOver = (job: Job): boolean => {
    const fallback = router.fallback(job.provider, job.message);
    if (!fallback) return false;
    if (!fallback.send) {
      logger.warn(
        `delivery: ${job.provider} failed for good for message ${job.message.id}; its fallback ${fallback.provider} already has it`,
      );
      return true;
    }
    logger.warn(
      `delivery: ${job.provider} failed for good for message ${job.message.id}; handing it to its fallback ${fallback.provider}`,
    );
    delivery.enqueue({
      ...router.direct(fallback.provider, job.message, clock.now()),
      ...(job.openedResolved ? { openedResolved: job.openedResolved } : {}),
    });
    return true;
  };
  const lost = (job: Job) => {
    metrics.deliveryTerminalErrors.inc();
    if (job.message.action === "resolve" || job.message.action === "opened_resolved")
      metrics.deliveryResolvesLost.inc();
  };
  // The state store (spec 1.9): in memory in Community, one SQLite file under MON_DATA_DIR in Pro.
  const stateStore = await openStore(edition === "pro" ? loaded.runtime.dataDir : undefined, {
    logger,
    metrics,
    health,
  });
  const stateReset = health.report().components.storage?.reason === "storage_reset";
  // The last sign of life of the previous process (Pro): a long silence is an unwatched period to name.
  const previousAlive = await stateStore.get(ALIVE_KEY).catch(() => undefined);
  const lastAlive =
    typeof previousAlive === "number" && clock.now() - previousAlive > 2 * ALIVE_INTERVAL_MS
      ? previousAlive
      : undefined;
  let aliveTimer: Cancel | undefined;
  const beat = () => {
    void stateStore.set(ALIVE_KEY, clock.now());
    aliveTimer = clock.setTimer(beat, ALIVE_INTERVAL_MS);
  };
  if (stateStore.persistent) beat();
  const deliveryStore = createDeliveryStore(
    stateStore,
    {
      corrupt: (key) => {
        metrics.storageCorruptRecords.inc();
        logger.warn(`state store: record ${key} could not be decoded; skipped`);
      },
      expired: () => metrics.storageExpired.inc(),
    },
    () => clock.now(),
  );
  const retry = new Map(
    built.providers
      .filter((p) => p.common.retry)
      .map(
        (p) =>
          [
            p.definition.name,
            {
              ...(p.common.retry?.maxAttempts !== undefined ? { maxAttempts: p.common.retry.maxAttempts } : {}),
              ...(p.common.retry?.delay !== undefined ? { delayMs: parseDuration(p.common.retry.delay) } : {}),
            },
          ] as const,
      ),
  );
  const delivery = createDelivery({
    senders,
    clock,
    logger,
    retry,
    store: deliveryStore,
    clean: (text) => redact(text).text,
    hooks: {
      saturated: () => {
        metrics.deliveryQueueSaturated.inc();
        metrics.deliveryPendingDropped.inc();
      },
      expired: () => metrics.deliveryPendingDropped.inc(),
      attempted: () => metrics.deliveryNotifications.inc(),
      delivered: (job, outcome) => {
        if (outcome?.kind === "ok" && outcome.untracked) {
          metrics.trackerUntracked.inc();
          logger.warn(
            `${job.provider}: the issue created for ${job.message.incidentId} was not named in the answer; later messages will look it up by its key`,
          );
        }
      },
      retried: () => metrics.deliveryRetries.inc(),
      dropped: (job) => {
        if (handOver(job)) return;
        metrics.deliveryDropped.inc();
        lost(job);
      },
      deadLettered: (_letter, job) => {
        metrics.deliveryDeadLetters.inc();
        if (!handOver(job)) lost(job);
      },
      queueDepth: (provider, depth) => metrics.deliveryQueueDepth.set({ provider }, depth),
      providerState: (provider, state) => {
        if (state === "ok") health.set(`provider-${provider}`, "ok");
        else
          health.set(`provider-${provider}`, "degraded", {
            reason:
              state === "rejected"
                ? "provider_rejected"
                : state === "rate_limited"
                  ? "provider_rate_limited"
                  : "provider_unavailable",
          });
      },
    },
  });

  persistRoute = (incidentId, providers) => {
    const write = providers ? deliveryStore.saveRoute(incidentId, providers) : deliveryStore.removeRoute(incidentId);
    write.catch((error: unknown) =>
      logger.warn(`state store: recording the providers of ${incidentId} failed: ${(error as Error).message}`),
    );
  };
  router.restore(await deliveryStore.loadRoutes());
  const resumed = await delivery.restore();
  if (resumed > 0) logger.info(`resumed ${resumed} message(s) left in the outbox by the previous process`);
  const capBytes =
    loaded.runtime.volumeLimitBytes !== undefined ? loaded.runtime.volumeLimitBytes * CAP_SHARE : DEFAULT_CAP_BYTES;
  let maintenanceTimer: Cancel | undefined;
  const maintain = async () => {
    try {
      const report = await maintainStore(stateStore, capBytes);
      metrics.storageFileBytes.set(report.fileBytes);
      metrics.storageFreeBytes.set(report.freeBytes);
      metrics.storageEvicted.inc(report.evicted);
      if (report.rewritten) metrics.storageRewrites.inc();
      if (report.evicted)
        logger.warn(
          `state store: ${report.evicted} oldest dead letter(s) evicted to stay under ${Math.round(capBytes / 1048576)} MiB`,
        );
      if (report.overCap) health.set("storage", "degraded", { reason: "storage_over_cap" });
      else if (health.report().components.storage?.reason === "storage_over_cap") health.set("storage", "ok");
    } catch (error) {
      logger.warn(`state store maintenance failed: ${(error as Error).message}`);
    }
    maintenanceTimer = clock.setTimer(() => void maintain(), 10 * 60_000);
  };
  if (stateStore.persistent) void maintain();

  let server: HealthServer | undefined;
  if (config.healthCheck.enabled) {
    server = await startHealthServer({
      port: options.healthPort ?? config.healthCheck.port,
      hostname: options.healthHost,
      health,
      metrics: metrics.registry,
    });
    logger.info(`health server on ${server.url}`);
  }

  const inventory = new Inventory();
  let lifecycle: LifecycleState = emptyLifecycle();
  let scheduled: Cancel | undefined;
  let recheck: Cancel | undefined;
  let firstDirtyAt: number | undefined;
  let stopped = false;
  // Lifecycle state starts empty on every start, so the first pass is the baseline (spec 1.7).
  let baselined = false;
  const rules = prepareRules({
    ...(config.namespaces ? { namespaces: config.namespaces } : {}),
    ...(config.namespaceSelector ? { namespaceSelector: config.namespaceSelector } : {}),
    ...(config.reasons ? { reasons: config.reasons } : {}),
    silences: config.silences,
    ...(edition === "pro" && config.maintenance.enabled
      ? {
          maintenance: {
            annotation: config.maintenance.annotation,
            untilAnnotation: config.maintenance.untilAnnotation,
          },
        }
      : {}),
    ...(edition === "pro"
      ? { acknowledge: true, severity: severityOverrides(config.severityByReason, config.severityByOwnerKind) }
      : {}),
  });
  // The audit log is Pro (spec 2.1): one JSON entry per incident decision.
  let auditDrops = 0;
  const audit: AuditLog | undefined =
    edition === "pro" && config.auditLog.enabled
      ? createAuditLog({
          output: config.auditLog.output,
          stdout: options.stdout ?? ((t) => process.stdout.write(t)),
          hooks: {
            dropped: (count, why, error) => {
              metrics.auditDropped.inc(count);
              // One line for the first loss and then one per thousand, so a stuck disk does not flood the log.
              if (auditDrops === 0 || Math.floor((auditDrops + count) / 1000) > Math.floor(auditDrops / 1000)) {
                logger.warn(
                  `audit log: ${count} entr${count === 1 ? "y" : "ies"} dropped (${why === "queue_full" ? "queue full" : `cannot write ${config.auditLog.output}: ${error?.message ?? "unknown error"}`}); counted in mon_audit_dropped_total`,
                );
              }
              auditDrops += count;
            },
          },
        })
      : undefined;
  const synced = createWaiters(clock);
  const countedEvents = new Set<string>();
  let routing: Promise<void> = Promise.resolve();
  let allSynced = () => false;

  const served = new Map<string, number>();
  let servedSince: number | undefined;
  const pass = () => {
    scheduled = undefined;
    if (stopped || !allSynced()) return;
    const now = clock.now();
    const latest = usage.latest();
    const probed = probes?.latest();
    // Page rule P1 (c) needs to know which Services served in the last day: remembered here, a day at most.
    servedSince ??= now;
    for (const key of servingServices(inventory)) served.set(key, now);
    for (const [key, at] of served) if (now - at > 24 * 3600_000) served.delete(key);
    const result = runPass(
      inventory,
      lifecycle,
      now,
      cluster,
      {
        ...(latest.kubelet ? { kubelet: latest.kubelet.summaries } : {}),
        ...(latest.apiServer ? { apiServer: latest.apiServer } : {}),
        ...(latest.apiRequests ? { apiRequests: latest.apiRequests } : {}),
        ...(latest.dnsResponses ? { dnsResponses: latest.dnsResponses } : {}),
        ...(probed?.length ? { probes: probed } : {}),
        served: { at: served, since: servedSince },
      },
      logs,
      rules,
      { baseline: !baselined },
    );
    if (result.failedDetectors.length === 0 && !result.panicked) baselined = true;
    if (result.panicked) {
      metrics.panicsRecovered.inc({ stage: result.panicked.stage });
      logger.error(
        `pass failed in stage ${result.panicked.stage}: ${result.panicked.error}; nothing was decided, the next pass tries again`,
      );
    }
    for (const name of result.failedDetectors) {
      metrics.panicsRecovered.inc({ stage: "detector" });
      logger.error(`detector ${name} failed; its incidents are kept unchanged until it works again`);
    }
    lifecycle = result.state;
    for (const uid of result.unexplainedEvents) {
      if (countedEvents.has(uid)) continue;
      countedEvents.add(uid);
      metrics.unexplained.inc({ kind: "event" });
      // Bounded memory: events older than the window are never seen again anyway.
      if (countedEvents.size > 20_000) countedEvents.delete(countedEvents.values().next().value as string);
    }
    metrics.redactedValues.inc(result.redacted);
    if (audit) for (const entry of auditEntries(result.decisions, result.skipped, cluster)) audit.write(entry);
    for (const d of result.decisions) {
      metrics.incidentsTotal.inc({ action: d.action });
      if ((d.action === "announce" || d.action === "opened_resolved") && isUnexplained(d.incident))
        metrics.unexplained.inc({ kind: "incident" });
    }
    metrics.incidentsOpen.set(result.open);
    const messages = result.messages;
    // Every message is scrubbed of credentials before any provider sees it; the chain keeps their order.
    routing = routing
      .then(async () => {
        for (const { message, openedResolved } of messages) {
          const clean = await scrubMessage(message);
          const combined = openedResolved ? await scrubMessage(openedResolved) : undefined;
          metrics.redactedValues.inc(clean.count + (combined?.count ?? 0));
          logger.info(
            `${message.delivery === "startup summary" ? `startup summary of ${message.covers?.length ?? 0}` : message.action} ${message.incidentId} (${message.tier}${message.mode === "page" ? ", paging" : ""})`,
          );
          for (const job of router.route(clean.message, now, combined?.message)) delivery.enqueue(job);
        }
        const overflow = router.overflowDue(now);
        metrics.deliveryDigestSkipped.inc(overflow.skipped);
        for (const o of overflow.due) {
          const clean = await scrubMessage(renderOverflowDigest(o, now, cluster));
          delivery.enqueue(router.direct(o.provider, clean.message, now));
        }
      })
      .catch((error: unknown) => {
        metrics.panicsRecovered.inc({ stage: "announce" });
        logger.error(`routing failed: ${(error as Error).message}`);
      });
    if (firstDirtyAt !== undefined) metrics.decisionLag.observe(Math.max(0, now - firstDirtyAt) / 1000);
    firstDirtyAt = undefined;
    recheck?.();
    // A failed pass is tried again within 30 s even if the cluster stays quiet.
    const overflowAt = router.nextOverflowAt();
    const checkAt =
      result.nextCheckAt !== undefined && overflowAt !== undefined
        ? Math.min(result.nextCheckAt, overflowAt)
        : (result.nextCheckAt ?? overflowAt);
    const retryAt = result.panicked ? now + 30_000 : checkAt !== undefined ? Math.max(checkAt, now) : undefined;
    recheck = retryAt !== undefined ? clock.setTimer(schedule, retryAt - now) : undefined;
  };
  const schedule = () => {
    firstDirtyAt ??= clock.now();
    if (!scheduled && !stopped) scheduled = clock.setTimer(pass, options.passDelayMs ?? 250);
  };

  const logs = createLogEvidence({ connection: options.connection, clock, metrics, onReady: () => schedule() });
  const usage = createUsageSources({
    connection: options.connection,
    inventory,
    clock,
    logger,
    health,
    metrics,
    insecureSkipVerify: config.kubelet.insecureSkipVerify,
    onRound: () => schedule(),
    ...(options.dnsMetricsPort !== undefined ? { dnsMetricsPort: options.dnsMetricsPort } : {}),
  });
  // Active probes are Pro and opt-in (spec 2.3).
  const probeConfig = config.activeProbeMonitor;
  const probes: ProbeRunner | undefined =
    edition === "pro" && probeConfig.enabled
      ? createProbeRunner({
          settings: probeConfig,
          intervalMs: probeConfig.intervalSeconds * 1000,
          timeoutMs: probeConfig.timeoutSeconds * 1000,
          failureThreshold: probeConfig.failureThreshold,
          inventory,
          clock,
          logger,
          health,
          onRound: () => schedule(),
        })
      : undefined;
  let usageStarted = false;
  const watcher = watchCluster({
    config,
    connection: options.connection,
    clock,
    logger,
    inventory,
    health,
    metrics,
    onChange: schedule,
    onSynced: () => {
      synced.release();
      schedule();
      if (!usageStarted) {
        usageStarted = true;
        usage.start();
        probes?.start();
        if (!config.app.disableStartupMessage) void announceStart();
      }
    },
    ...(options.informerBackoffMs !== undefined ? { informerBackoffMs: options.informerBackoffMs } : {}),
  });
  allSynced = () => watcher.requiredSynced();
  // The startup message (spec 6): a plain notice, scrubbed like every message, ahead of the first pass's news.
  const announceStart = async () => {
    const notice = renderStartupNotice(VERSION, cluster, clock.now(), {
      ...(lastAlive !== undefined ? { lastAlive } : {}),
      ...(stateReset ? { stateReset } : {}),
    });
    routing = routing.then(async () => {
      const clean = await scrubMessage(notice);
      for (const job of router.route(clean.message, clock.now())) delivery.enqueue(job);
    });
  };
  logger.info(`mon ${VERSION} watching ${options.connection.server} (${options.connection.source})`);
  watcher.start();

  return {
    metrics,
    health,
    delivery,
    inventory,
    router,
    usage,
    ...(probes ? { probes } : {}),
    healthUrl: () => server?.url,
    waitForSync: (timeoutMs) => (allSynced() ? Promise.resolve(true) : synced.wait(timeoutMs)),
    evidencePending: () => logs.busy(),
    passNow: () => {
      scheduled?.();
      pass();
    },
    async stop(drainMs = 5_000) {
      stopped = true;
      scheduled?.();
      recheck?.();
      watcher.stop();
      usage.stop();
      probes?.stop();
      await routing;
      const drained = await delivery.drain(drainMs);
      if (!drained) {
        const left = [...senders.keys()].reduce((n, name) => n + delivery.depth(name), 0);
        metrics.deliveryDeferred.inc(left);
        logger.warn(
          `shutdown: ${left} message(s) still queued were not delivered (counted in mon_delivery_deferred_total)`,
        );
      }
      delivery.stop();
      for (const p of built.providers) p.provider.close?.();
      await audit?.flush();
      maintenanceTimer?.();
      aliveTimer?.();
      await stateStore
        .close()
        .catch((error: unknown) => logger.warn(`state store: close failed: ${(error as Error).message}`));
      await server?.close();
    },
  };
}

/** State key of the heartbeat (epoch ms), written every ALIVE_INTERVAL_MS while mon runs (Pro). */
const ALIVE_KEY = "meta:alive";
const ALIVE_INTERVAL_MS = 60_000;

/**
 * Opens the state store for the daemon (spec 1.9): memory without `dataDir`; the file under `dataDir`
 * otherwise, reporting a reset (set aside as `state.db.corrupt`) in metrics, health (`storage_reset`) and the
 * log. A data directory that cannot be used at all falls back to memory with an error: mon keeps watching.
 */
async function openStore(
  dataDir: string | undefined,
  deps: { logger: Logger; metrics: Metrics; health: HealthRegistry },
): Promise<StateStore> {
  const { logger, metrics, health } = deps;
  if (!dataDir) return openStateStore();
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
          logger.warn(`state store: writing ${key} failed: ${error.message}`);
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
