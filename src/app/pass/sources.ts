import type { Config } from "../../config/schema.ts";
import type { HealthRegistry } from "../../health/registry.ts";
import type { KubeConnection } from "../../kube/connection.ts";
import type { Inventory } from "../../kube/inventory.ts";
import type { Metrics } from "../../metrics.ts";
import type { Edition } from "../../model/edition.ts";
import type { UsageView } from "../../model/inventory.ts";
import type { ProbeRunner } from "../../probe/runner.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import { createEvidenceReads, type EvidenceReads } from "./evidence-reads.ts";
import { createUsageSources, probesFor, type UsageSources, usageView } from "./usage-sources.ts";

/**
 * What the pass reads besides the Inventory: what an announcement waits for (containers' logs, down nodes'
 * Leases), usage (kubelet, metrics API, API server, DNS), probes.
 */
export interface PassSources {
  readonly evidence: EvidenceReads;
  readonly usage: UsageSources;
  /** Active probes (`activeProbeMonitor.enabled`; they run while the edition is Pro). */
  readonly probes?: ProbeRunner;
  /** The latest usage rounds and probe results, as the pass reads them. */
  view(): UsageView;
  /** Starts the rounds (the probes too when `pro`). */
  start(pro: boolean): void;
  /** The edition changed: probes run while it is Pro (and the sources were started). */
  editionChanged(edition: Edition): void;
  stop(): void;
}

/** Builds the pass's sources; each round that brings something new calls `schedule` (a pass). */
export function createPassSources(deps: {
  config: Config;
  connection: KubeConnection;
  inventory: Inventory;
  clock: Clock;
  logger: Logger;
  health: HealthRegistry;
  metrics: Metrics;
  schedule: () => void;
  dnsMetricsPort?: number;
  /** The control plane's last absence this replica saw (UsageView.controlPlaneAway), read at each pass. */
  away?: () => UsageView["controlPlaneAway"];
}): PassSources {
  const { config, connection, inventory, clock, logger, health, metrics, schedule } = deps;
  const evidence = createEvidenceReads({ connection, clock, metrics, onReady: schedule });
  const usage = createUsageSources({
    connection,
    inventory,
    clock,
    logger,
    health,
    metrics,
    insecureSkipVerify: config.kubelet.insecureSkipVerify,
    onRound: schedule,
    ...(deps.dnsMetricsPort !== undefined ? { dnsMetricsPort: deps.dnsMetricsPort } : {}),
  });
  // Active probes are Pro and opt-in (spec 2.3): built when enabled, running while the edition is Pro.
  const probes = config.activeProbeMonitor.enabled
    ? probesFor(config.activeProbeMonitor, { inventory, clock, logger, health, onRound: schedule })
    : undefined;
  let started = false;
  return {
    evidence,
    usage,
    ...(probes ? { probes } : {}),
    view: () => usageView(usage, probes, deps.away?.()),
    start(pro) {
      started = true;
      usage.start();
      if (pro) probes?.start();
    },
    editionChanged(edition) {
      if (edition === "pro" && started) probes?.start();
      if (edition !== "pro") probes?.stop();
    },
    stop() {
      usage.stop();
      probes?.stop();
    },
  };
}
