import { stringify } from "yaml";
import { type Daemon, startDaemon } from "../app/daemon.ts";
import { connectKube } from "../kube/connection.ts";
import { createSystemClock } from "../runtime/clock.ts";
import { createLogger, createSilentLogger } from "../runtime/logger.ts";
import { type CaptureServer, startCaptureServer, waitUntil } from "./capture-server.ts";
import { parseConfig } from "./config.ts";
import { type Told, toldOf } from "./replay.ts";

/** The real daemon on the real clock against a real API server, every message captured by a webhook. */
export interface RealRun {
  readonly daemon: Daemon;
  readonly hook: CaptureServer;
  /** Epoch ms (real clock) of t=0: when the daemon's caches synced. */
  readonly zeroMs: number;
  /** What the webhook received, with the second (since t=0) each arrived at. */
  told(): Told[];
  /** The count of `mon_component_stalls_total` so far. */
  stalls(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts `mon run`'s daemon in this process against the API server of `kubeconfigText`, on the system clock,
 * delivering to a webhook on loopback, and waits until its caches synced (t=0). `config` is merged into the
 * configuration (app, health check and alert are set here). Set `MON_REAL_LOG=1` to see its log.
 */
export async function startRealDaemon(options: {
  kubeconfigText: string;
  config?: Record<string, unknown>;
  clusterName?: string;
}): Promise<RealRun> {
  const hook = await startCaptureServer();
  const config = parseConfig(
    stringify({
      ...options.config,
      app: { clusterName: options.clusterName ?? "real", disableStartupMessage: true },
      healthCheck: { enabled: false },
      alert: { webhook: { url: `${hook.url}/mon` } },
    }),
    "real.yaml",
    {},
  );
  const daemon = await startDaemon({
    config,
    connection: await connectKube({ kubeconfigText: options.kubeconfigText }),
    clock: createSystemClock(),
    logger: process.env.MON_REAL_LOG ? createLogger() : createSilentLogger(),
    stdout: () => {},
  });
  await waitUntil(() => daemon.health.ready(), "the daemon's caches to sync", 120_000);
  const zeroMs = Date.now();
  return {
    daemon,
    hook,
    zeroMs,
    told: () => hook.requests.map((r) => toldOf(r.json(), (r.receivedAt - zeroMs) / 1000)),
    async stalls() {
      const text = await daemon.metrics.registry.getSingleMetricAsString("mon_component_stalls_total");
      return Number(/mon_component_stalls_total (\d+)/.exec(text)?.[1] ?? 0);
    },
    async stop() {
      await daemon.stop(0);
      await hook.close();
    },
  };
}
