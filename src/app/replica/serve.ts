import type { HealthRegistry } from "../../health/registry.ts";
import type { Metrics } from "../../metrics.ts";
import type { DiagnosticsSource } from "../../server/diagnostics.ts";
import { type HealthServer, type StatusSource, startHealthServer } from "../../server/health-server.ts";
import { communityStatusText, statusReport, statusText } from "../../status/report.ts";
import type { DaemonOptions } from "../daemon-options.ts";
import type { Leader } from "../leader-types.ts";

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
export async function serveHealth(
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
export function statusOf(leader: Leader | undefined): ReturnType<StatusSource> {
  if (!leader) return undefined;
  const input = leader.status();
  if (input.edition !== "pro") return { pro: false, text: communityStatusText(input) };
  const report = statusReport(input);
  return { pro: true, json: report, text: statusText(report) };
}
