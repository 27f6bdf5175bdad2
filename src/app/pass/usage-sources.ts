import type { HealthRegistry } from "../../health/registry.ts";
import type { KubeConnection } from "../../kube/connection.ts";
import type { Inventory } from "../../kube/inventory.ts";
import { healthReasonOf } from "../../kube/errors.ts";
import { readKubeletStats, roundHealth, type StatsRound } from "../../kube/kubelet-stats.ts";
import { readMetricsApi, type UsageSnapshot } from "../../kube/metrics-api.ts";
import { readApiServerReadiness } from "../../kube/apiserver-readyz.ts";
import { readApiServerRequests, type ApiServerRequests } from "../../kube/apiserver-metrics.ts";
import { readDnsCounters, type DnsCounters } from "../../kube/dns-metrics.ts";
import { increase } from "../../kube/prometheus-text.ts";
import type { DnsResponseCounts, RequestCounts, UsageView } from "../../model/inventory.ts";
import type { Metrics } from "../../metrics.ts";
import type { LoadedConfig } from "../../config/load.ts";
import { createProbeRunner, type ProbeRunner } from "../../probe/runner.ts";
import type { Cancel, Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";

/** The usage sources: kubelet statistics and the metrics API, read in rounds. */
export interface UsageSources {
  /** Runs one round now (the daemon starts the first once caches are synced); resolves when it is done. */
  round(): Promise<void>;
  /** Starts the periodic rounds. */
  start(): void;
  stop(): void;
  /** The last round's kubelet Summary documents by node, and the metrics API snapshot (undefined when not installed). */
  latest(): {
    kubelet?: StatsRound;
    metrics?: UsageSnapshot;
    apiServer?: { failing: readonly string[]; since: number };
    apiServerReading?: { at: number; readable: boolean };
    apiRequests?: RequestCounts;
    dnsResponses?: DnsResponseCounts;
  };
}

/**
 * Reads kubelet statistics for every node, the API server's /readyz checks and /metrics, the cluster DNS pods'
 * metrics (port 9153, `dnsMetricsPort` in tests) and the metrics API every `intervalMs` (default 60 s); the
 * request and DNS counts are what happened between two rounds. It reports
 * them in health: `kubelet-stats` is ok, or degraded with `kubelet_partially_unreachable` / `kubelet_unreachable`
 * (only usage attributes are affected, so it never fails readiness); `metrics-api` is degraded with
 * `optional_api_unavailable` when the API is not installed. Each failed node counts once per round in
 * `mon_kubelet_stats_failures_total`.
 */
export function createUsageSources(options: {
  connection: KubeConnection;
  inventory: Inventory;
  clock: Clock;
  logger: Logger;
  health: HealthRegistry;
  metrics: Metrics;
  insecureSkipVerify: boolean;
  intervalMs?: number;
  onRound?: () => void;
  dnsMetricsPort?: number;
}): UsageSources {
  const { health, metrics, logger } = options;
  let kubelet: StatsRound | undefined;
  let usage: UsageSnapshot | undefined;
  let apiServer: { failing: readonly string[]; since: number } | undefined;
  let apiServerReading: { at: number; readable: boolean } | undefined;
  // Running totals of the previous round, to count what happened in between.
  let requestsBefore: { at: number; totals: Map<string, ApiServerRequests> } | undefined;
  let dnsBefore: { at: number; totals: Map<string, DnsCounters> } | undefined;
  let apiRequests: RequestCounts | undefined;
  let dnsResponses: DnsResponseCounts | undefined;
  let timer: Cancel | undefined;
  let stopped = false;
  let lastHealth = "";

  // The address each node's kubelet answered on last (its InternalIP, or its Hostname when that is where it listens).
  const answeredOn = new Map<string, string>();
  // Rounds never overlap: one asked for while another runs starts after it.
  let running: Promise<void> = Promise.resolve();
  const round = (): Promise<void> => {
    running = running.then(readRound, readRound);
    return running;
  };
  const readRound = async () => {
    const nodes = options.inventory.list("Node");
    kubelet = await readKubeletStats({
      connection: options.connection,
      nodes,
      insecureSkipVerify: options.insecureSkipVerify,
      logger,
      answeredOn,
    });
    metrics.kubeletStatsFailures.inc(kubelet.failures.size);
    const state = roundHealth(kubelet);
    if (state === "ok") health.set("kubelet-stats", "ok");
    else health.set("kubelet-stats", "degraded", { reason: state });
    const summary =
      state === "ok"
        ? ""
        : `${state}: ${[...kubelet.failures]
            .slice(0, 5)
            .map(([n, why]) => `${n} (${why})`)
            .join(", ")}${kubelet.failures.size > 5 ? ", …" : ""}`;
    if (summary !== lastHealth) {
      if (summary) logger.warn(`kubelet stats: ${summary}`);
      else if (lastHealth) logger.info("kubelet stats: every node answers again");
      lastHealth = summary;
    }
    const readiness = await readApiServerReadiness(options.connection);
    if (readiness && !readiness.ok)
      apiServer = { failing: readiness.failing, since: apiServer?.since ?? options.clock.now() };
    else if (readiness) apiServer = undefined;
    apiServerReading = { at: options.clock.now(), readable: readiness !== undefined };
    const now = options.clock.now();
    const requests = await readApiServerRequests(options.connection);
    const requestTotals = new Map(requests ? [["apiserver", { ...requests }]] : []);
    // Two reads at one instant (a round asked for while the timer's round ran) say nothing about a rate: the
    // newer read becomes the baseline and the last interval's counts stand.
    if (!requestsBefore || now > requestsBefore.at) {
      const requestDelta = requestsBefore ? increase(requestsBefore.totals, requestTotals) : undefined;
      apiRequests =
        requestDelta && requestsBefore ? { ...requestDelta, seconds: (now - requestsBefore.at) / 1000 } : undefined;
    }
    requestsBefore = requests ? { at: now, totals: requestTotals } : undefined;
    const dns = await readDnsCounters(
      options.inventory.list("Pod"),
      options.dnsMetricsPort !== undefined ? { port: options.dnsMetricsPort } : {},
    );
    if (!dnsBefore || now > dnsBefore.at) {
      const dnsDelta = dnsBefore ? increase(dnsBefore.totals, dns) : undefined;
      dnsResponses = dnsDelta && dnsBefore ? { ...dnsDelta, seconds: (now - dnsBefore.at) / 1000 } : undefined;
    }
    dnsBefore = dns.size ? { at: now, totals: dns } : undefined;
    options.onRound?.();
    try {
      const read = await readMetricsApi(options.connection);
      usage = read === "unavailable" ? undefined : read;
      if (read === "unavailable") health.set("metrics-api", "degraded", { reason: "optional_api_unavailable" });
      else health.set("metrics-api", "ok");
    } catch (error) {
      const reason = healthReasonOf(error, "component_failed");
      health.set("metrics-api", "degraded", {
        reason: reason === "permission_denied" ? "optional_permission_denied" : reason,
      });
      logger.warn(`metrics API: ${(error as Error).message}`);
    }
  };

  const schedule = () => {
    if (stopped) return;
    timer = options.clock.setTimer(() => void round().finally(schedule), options.intervalMs ?? 60_000);
  };

  return {
    round,
    start() {
      health.set("kubelet-stats", "pending", { reason: "cache_sync_pending" });
      void round().finally(schedule);
    },
    stop() {
      stopped = true;
      timer?.();
    },
    latest: () => ({
      ...(kubelet ? { kubelet } : {}),
      ...(usage ? { metrics: usage } : {}),
      ...(apiServer ? { apiServer } : {}),
      ...(apiServerReading ? { apiServerReading } : {}),
      ...(apiRequests ? { apiRequests } : {}),
      ...(dnsResponses ? { dnsResponses } : {}),
    }),
  };
}

/** The active probe runner (Pro, spec 2.3) from `activeProbeMonitor`. */
export function probesFor(
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
export function usageView(
  usage: UsageSources,
  probes: ProbeRunner | undefined,
  away?: UsageView["controlPlaneAway"],
): UsageView {
  const latest = usage.latest();
  const probed = probes?.latest();
  return {
    ...(away ? { controlPlaneAway: away } : {}),
    ...(latest.kubelet ? { kubelet: latest.kubelet.summaries } : {}),
    ...(latest.apiServer ? { apiServer: latest.apiServer } : {}),
    ...(latest.apiServerReading ? { apiServerReading: latest.apiServerReading } : {}),
    ...(latest.apiRequests ? { apiRequests: latest.apiRequests } : {}),
    ...(latest.dnsResponses ? { dnsResponses: latest.dnsResponses } : {}),
    ...(probed?.length ? { probes: probed } : {}),
  };
}
