import { isAbsolute, resolve } from "node:path";
import { cwd } from "node:process";
import { createAuditLog } from "../audit/log.ts";
import type { LoadedConfig } from "../config/load.ts";
import type { Delivery } from "../deliver/delivery.ts";
import type { HealthRegistry } from "../health/registry.ts";
import { auditEntries } from "../incident/audit.ts";
import type { KubeConnection } from "../kube/connection.ts";
import type { Inventory } from "../kube/inventory.ts";
import type { LicenseManager } from "../license/manager.ts";
import type { Metrics } from "../metrics.ts";
import type { Edition } from "../model/edition.ts";
import { renderStartupNotice, renderUnwatchedNotice } from "../notify/notice.ts";

/** The shortest blind period providers hear of, ms: shorter ones (a watch reconnecting) are only logged. */
export const UNWATCHED_NOTICE_MS = 60_000;
import { renderRestoredSummary } from "../notify/summary.ts";
import { maskLicenseId } from "../license/lease.ts";
import type { StatusInput } from "../status/report.ts";
import type { LifecycleState } from "../incident/lifecycle.ts";
import type { Incident } from "../model/incident.ts";
import { createProbeRunner, type ProbeRunner } from "../probe/runner.ts";
import type { Router } from "../route/router.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { fencedStore } from "../state/fenced.ts";
import { VERSION } from "../version.ts";
import { createCallHome } from "./callhome.ts";
import type { DaemonOptions } from "./daemon.ts";
import { createDeliveryStages } from "./delivery-stages.ts";
import { createDiagnostics } from "./diagnostics.ts";
import type { DiagnosticsSource } from "../server/diagnostics.ts";
import { type LicenseHandle, startEdition } from "./license.ts";
import { createLogEvidence } from "./log-evidence.ts";
import type { Observers } from "./observe.ts";
import { createOutgoing } from "./outgoing.ts";
import { providerTemplates, templated } from "./templates.ts";
import type { Job } from "../model/job.ts";
import { createPassLoop, type PassLoop } from "./pass-loop.ts";
import type { Prepared } from "./prepare.ts";
import { type DaemonState, openDaemonState } from "./state.ts";
import { createUsageSources, type UsageSources } from "./usage-sources.ts";

/** What the leader's work needs from the replica that runs it. */
export interface LeaderOptions {
  readonly daemon: DaemonOptions;
  readonly connection: KubeConnection;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly health: HealthRegistry;
  readonly prepared: Prepared;
  /** The replica's warm caches. */
  readonly inventory: Inventory;
  /** Whether the required caches are synced. */
  readonly synced: () => boolean;
  /** The fencing check (this replica holds the state lock under its term); absent without a lock. */
  readonly holds?: () => boolean;
  /** What the previous work of this process handed over (an in-process restart: the overlay changed). */
  readonly carried?: Carried;
}

/**
 * What one leader's work hands to the next in the same process (the configuration overlay changed, spec 2.5):
 * the open state store with the outbox and conversations, the incidents as the last pass left them, and the
 * running license, so nothing is announced twice, lost or activated again.
 */
export interface Carried {
  readonly state: DaemonState;
  readonly lifecycle: LifecycleState;
  readonly license?: LicenseHandle;
}

/** The leader's running work. */
export interface Leader {
  readonly loop: PassLoop;
  readonly delivery: Delivery;
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
  /** True while evidence for a deferred finding (a crashed container's log) is being read. */
  evidencePending(): boolean;
  /** Resolves once every message decided so far is redacted and in the delivery queues (or skipped). */
  sent(): Promise<void>;
  /** What /status shows now (spec 4.1): the open incidents told, the caches, usage, license and providers. */
  status(): StatusInput;
  /** What the diagnostics endpoints read and do (healthCheck.diagnostics). */
  readonly diagnostics: DiagnosticsSource;
  /** The required caches synced (again): a pass; the first time, the work starts. */
  begin(): void;
  /**
   * mon was blind from `from` to `to` (epoch ms): logged, and from UNWATCHED_NOTICE_MS on, providers hear one
   * notice naming the unwatched period (spec 6 startup message, for an outage mon survived).
   */
  unwatched(period: { from: number; to: number; reason: string }): void;
  /** Stops deciding, sending and calling out; what is queued stays in the outbox. */
  halt(): void;
  /** Drains delivery for up to `drainMs` (what is left is counted deferred), closes providers and the state. */
  finish(drainMs: number): Promise<void>;
  /**
   * Stops this work for the next in the same process: stops deciding and calling out, delivers for up to
   * `drainMs` (what is left stays in the outbox and is resumed), closes providers, and hands over the state,
   * the incidents and the license, open.
   */
  handOver(drainMs: number): Promise<Carried>;
}

/**
 * The leader's work (spec 1.9, 3.3; docs/leadership.md), built once this replica holds the state lock: the
 * license decides the edition, the state is restored (outbox, conversations, kept incidents), then delivery,
 * call home, usage sources, probes and the pass loop are built. `begin()` starts them at the first sync after
 * leading (at once when the standby's caches are already warm); `halt()` stops deciding, sending and calling
 * out (what is queued stays in the outbox); `finish()` drains delivery and closes the state.
 */
export async function startLeader(options: LeaderOptions): Promise<Leader> {
  const { daemon, clock, logger, connection, metrics, health, prepared, inventory, holds, carried } = options;
  const loaded = daemon.config;
  const config = loaded.config;
  const cluster = config.app.clusterName;
  // The license decides the edition before the components are built (spec 4.3); it can change while running.
  const { control, license: licensed } = await startEdition({
    ...(daemon.edition ? { fixed: daemon.edition } : {}),
    ...(carried?.license ? { carried: carried.license } : {}),
    loaded,
    connection,
    http: prepared.http,
    clock,
    logger,
    metrics,
    inactive: () => router.inactive,
  });
  const license = licensed?.manager;
  const pro = () => control.current() === "pro";
  // A state file in Pro, memory in Community; the state moves when the edition changes (docs/license.md).
  const state =
    carried?.state ??
    (await openDaemonState({
      dataDir: loaded.runtime.dataDir,
      persistent: pro(),
      ...(loaded.runtime.volumeLimitBytes !== undefined ? { volumeLimitBytes: loaded.runtime.volumeLimitBytes } : {}),
      clock,
      logger,
      metrics,
      health,
    }));
  // Fencing: only the holder of the state lock under the term it led with may write the outbox or send.
  const records = holds ? fencedStore(state.delivery, holds, refusedOnce(logger)) : state.delivery;
  const { router, observe, delivery } = createDeliveryStages({
    prepared,
    config,
    edition: () => control.current(),
    records,
    ...(holds ? { holds } : {}),
    clock,
    logger,
    metrics,
    health,
  });
  router.restore(await records.loadRoutes());
  metrics.sources.outboxAges = () =>
    router.active.map((p) => {
      const oldest = delivery.oldest(p);
      return [p, oldest === undefined ? 0 : Math.max(0, (clock.now() - oldest) / 1000)] as const;
    });
  metrics.sources.outboxDepth = () => router.active.reduce((n, p) => n + delivery.depth(p), 0);
  const resumed = await delivery.restore();
  if (resumed > 0) logger.info(`resumed ${resumed} message(s) left in the outbox by the previous process`);

  const audit = auditFor(config, daemon, observe, logger);
  // Templates of plain-text providers apply while the edition is Pro (spec 2.1 `templates`).
  const templates = providerTemplates(config, prepared.providers);
  const outgoing = createOutgoing({
    router,
    delivery,
    metrics,
    logger,
    cluster,
    ...(templates.size ? { templated: (job: Job) => (pro() ? templated(job, templates.get(job.provider)) : job) } : {}),
  });
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
    ...(daemon.build ? { build: daemon.build } : {}),
  });
  const schedule = () => loop.schedule();
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
    ...(daemon.dnsMetricsPort !== undefined ? { dnsMetricsPort: daemon.dnsMetricsPort } : {}),
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
  const restoredFromState = carried ? undefined : await state.loadLifecycle();
  const restored = carried ? carried.lifecycle : restoredFromState;
  // The kept incidents are written only after the messages their decisions produced are in the outbox: a kill
  // in between must leave an incident that the next leader announces, never one it thinks was announced while
  // its announcement was lost (docs/leadership.md). Fenced like every other write: a deposed leader never
  // overwrites what the new one keeps. One save at a time, in pass order.
  let saving: Promise<unknown> = Promise.resolve();
  const keep = (lifecycle: LifecycleState) => {
    saving = saving
      .then(() => outgoing.settled())
      .then(() => delivery.persisted())
      .then(() => ((holds?.() ?? true) ? state.saveLifecycle(lifecycle) : undefined))
      .catch((error: unknown) => logger.warn(`state store: keeping the incidents failed: ${(error as Error).message}`));
  };
  let restoredPending: Incident[] | undefined;
  const loop = createPassLoop({
    clock,
    inventory,
    cluster,
    rules: () => control.rules(),
    evidence: logs,
    ready: options.synced,
    usage: () => usageView(usage, probes),
    onResult(result, now) {
      observe.pass(result);
      // Restarted with its state (Pro): one summary names the open problems whose threads continue (spec 6),
      // after the first pass has seen the cluster: a problem that ended while mon was down is resolved, not
      // called "still open" (issue 30).
      if (restoredPending) {
        const stillOpen = restoredPending.filter((i) => result.state.incidents.get(i.id)?.phase === "open");
        restoredPending = undefined;
        if (stillOpen.length)
          outgoing.send(
            [{ message: renderRestoredSummary(stillOpen, now, cluster, delivery.foldedAt()).message }],
            now,
          );
      }
      if (audit && pro())
        for (const entry of auditEntries(result.decisions, result.skipped, cluster)) audit.write(entry);
      outgoing.send(result.messages, now);
    },
    onLag: (seconds) => metrics.decisionLag.observe(seconds),
    nextWakeAt: () => delivery.nextOverflowAt(),
    ...(restored ? { initial: restored } : {}),
    onState: keep,
    ...(daemon.passDelayMs !== undefined ? { delayMs: daemon.passDelayMs } : {}),
  });
  /**
   * One drain for `finish` and `handOver` (issue 31.1): what the passes decided reaches the queues, delivery
   * runs for up to `drainMs`, then stops; providers close, the audit log and the state are written. Resolves
   * the providers' queue depths when something is left, else undefined.
   */
  const drainAndClose = async (drainMs: number): Promise<[string, number][] | undefined> => {
    await outgoing.settled();
    const left = (await delivery.drain(drainMs))
      ? undefined
      : router.active.map((p): [string, number] => [p, delivery.depth(p)]);
    delivery.stop();
    for (const p of prepared.providers) p.provider.close?.();
    await audit?.flush();
    await saving;
    return left;
  };

  return {
    loop,
    delivery,
    router,
    usage,
    ...(probes ? { probes } : {}),
    ...(license ? { license } : {}),
    edition: () => control.current(),
    persistentState: () => state.store.persistent,
    evidencePending: () => logs.busy(),
    sent: () => outgoing.settled(),
    diagnostics: createDiagnostics({ loop, delivery, router, providers: prepared.providers, clock, cluster }),
    status() {
      const report = health.report();
      const licensed = license?.state();
      return {
        now: clock.now(),
        cluster,
        version: VERSION,
        edition: control.current(),
        leading: true,
        incidents: [...loop.state().incidents.values()].filter(
          (i) => i.phase === "open" && (i.announced || i.digested),
        ),
        inventory,
        usage: usageView(usage, probes),
        unseen: [
          ...report.coverage.kinds.map((k) => ({ what: k.kind, reason: k.reason })),
          ...Object.entries(report.components)
            .filter(([, c]) => c.state !== "ok")
            .map(([name, c]) => ({ what: name, reason: c.reason ?? c.state })),
        ],
        license: licensed
          ? {
              state: licensed.name,
              ...(licensed.licenseId ? { licenseId: maskLicenseId(licensed.licenseId) } : {}),
              ...(licensed.leaseExpiresAt !== undefined ? { leaseExpiresAt: licensed.leaseExpiresAt } : {}),
              ...(licensed.licenseExpiresAt !== undefined ? { licenseExpiresAt: licensed.licenseExpiresAt } : {}),
              ...(licensed.reason ? { reason: licensed.reason } : {}),
            }
          : { state: control.current() === "pro" ? "fixed" : "community" },
        providers: report.providers,
      };
    },
    unwatched(period) {
      const seconds = Math.round((period.to - period.from) / 1000);
      logger.warn(
        `the cluster was not watched for ${seconds} s (${period.reason}); what changed meanwhile is applied now`,
      );
      if (period.to - period.from < UNWATCHED_NOTICE_MS || config.app.disableStartupMessage) return;
      outgoing.notice(renderUnwatchedNotice(cluster, period, clock.now()), clock.now());
    },
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
      // An in-process restart (the overlay changed) is not a start: providers hear nothing of it.
      if (!config.app.disableStartupMessage && !carried) outgoing.notice(notice, clock.now());
      // Restarted with its state (Pro): the summary of the problems still open follows the first pass.
      const continued = restoredFromState
        ? [...restoredFromState.incidents.values()].filter((i) => i.phase === "open" && i.announced)
        : [];
      if (continued.length && !carried) restoredPending = continued;
      control.ready();
      callHome.started();
    },
    halt() {
      license?.stop();
      callHome.stop();
      loop.stop();
      usage.stop();
      probes?.stop();
    },
    async handOver(drainMs) {
      callHome.stop();
      loop.stop();
      usage.stop();
      probes?.stop();
      // What is left stays in the outbox and is resumed by the next work in this process.
      await drainAndClose(drainMs);
      return { state, lifecycle: loop.state(), ...(licensed ? { license: licensed } : {}) };
    },
    async finish(drainMs) {
      const left = await drainAndClose(drainMs);
      if (left) observe.deferred(left);
      await state.close();
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
    ...(latest.apiServerReading ? { apiServerReading: latest.apiServerReading } : {}),
    ...(latest.apiRequests ? { apiRequests: latest.apiRequests } : {}),
    ...(latest.dnsResponses ? { dnsResponses: latest.dnsResponses } : {}),
    ...(probed?.length ? { probes: probed } : {}),
  };
}

/** The audit log (Pro, spec 2.1): one JSON entry per incident decision, written while the edition is Pro. */
function auditFor(config: LoadedConfig["config"], options: DaemonOptions, observe: Observers, logger: Logger) {
  if (!config.auditLog.enabled) return undefined;
  const written = config.auditLog.output;
  // A relative path is the working directory's (spec 2.1 allows any file path), and the log says so once.
  const output = written === "stdout" || isAbsolute(written) ? written : resolve(cwd(), written);
  if (output !== written)
    logger.info(
      `audit log: ${output} (auditLog.output "${written}" is relative: resolved against the working directory)`,
    );
  return createAuditLog({
    output,
    stdout: options.stdout ?? ((t) => process.stdout.write(t)),
    hooks: { dropped: (count, why, error) => observe.auditDropped(count, why, output, error) },
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
