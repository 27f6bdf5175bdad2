import type { HttpClient } from "../outbound/client.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { TelemetryStore } from "./telemetry-store.ts";

/** Why telemetry is not sent (spec 8 startup line; docs/telemetry.md). */
export type TelemetrySkip = "disabled" | "disabled_env" | "dev_build" | "ci_environment" | "no_state_store";

/** Failure reasons of `mon_telemetry_failures_total` (spec 4.2). */
export type TelemetryFailure = "state_read" | "invalid_identity" | "network" | "http_status" | "state_write";

/** The counters telemetry reports (spec 4.2). */
export interface TelemetryMetrics {
  attempts(): void;
  successes(): void;
  retries(): void;
  failures(reason: TelemetryFailure): void;
}

const DAY = 86_400_000;
/** Spec 8: first heartbeat shortly after start, then at most once per 7 days; retries after 1, 5, 15, 30, then 60 min. */
export const TELEMETRY = {
  firstDelayMs: 60_000,
  everyMs: 7 * DAY,
  retryMs: [1, 5, 15, 30, 60].map((m) => m * 60_000),
  attemptTimeoutMs: 3_000,
} as const;
const STATE_KEY = "telemetry";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Whether telemetry is sent, and if not why: off in the configuration, off by MON_TELEMETRY, a development
 * build, a CI environment (CI set to anything but empty/false/0/no/off), or an install without a state store
 * (`no_state_store`: neither Pro's state file nor a writable data directory, telemetry-store.ts, where the
 * once-per-7-days mark would survive a restart). Pure.
 */
export function telemetryDecision(options: {
  enabled: boolean;
  disabledByEnv: boolean;
  build: "release" | "development";
  ci: boolean;
  /** A state store exists for the mark (telemetry-store.ts). */
  stateStore: boolean;
}): { send: true } | { send: false; reason: TelemetrySkip } {
  if (options.disabledByEnv) return { send: false, reason: "disabled_env" };
  if (!options.enabled) return { send: false, reason: "disabled" };
  if (options.build !== "release") return { send: false, reason: "dev_build" };
  if (options.ci) return { send: false, reason: "ci_environment" };
  if (!options.stateStore) return { send: false, reason: "no_state_store" };
  return { send: true };
}

/** A running telemetry sender. */
export interface Telemetry {
  start(): void;
  stop(): void;
}

/**
 * The adoption heartbeat (spec 4.3, 8): POST `{url}/telemetry/heartbeat` with a JSON body of exactly
 * `cluster_uuid` and `mon_version`, User-Agent `mon-telemetry/1`, 3 s per attempt, through the outbound client.
 * The first one `TELEMETRY.firstDelayMs` after start unless one was sent in the last 7 days (the mark is kept in
 * the state store), then every 7 days; a failed one is retried after 1, 5, 15, 30, then every 60 minutes.
 */
export function createTelemetry(options: {
  url: string;
  http: HttpClient;
  store: TelemetryStore;
  clock: Clock;
  logger: Logger;
  metrics: TelemetryMetrics;
  version: string;
  /** The cluster UUID, derived once (cluster-uuid.ts) and then kept in the state store. */
  clusterUuid: () => Promise<string>;
}): Telemetry {
  const { clock, logger, metrics } = options;
  const endpoint = `${options.url.replace(/\/+$/, "")}/telemetry/heartbeat`;
  let timer: (() => void) | undefined;
  let stopped = false;
  let failures = 0;
  const schedule = (delayMs: number) => {
    if (!stopped) timer = clock.setTimer(() => void beat(), delayMs);
  };
  const retry = (reason: TelemetryFailure, detail: string) => {
    metrics.failures(reason);
    metrics.retries();
    failures += 1;
    const wait = TELEMETRY.retryMs[Math.min(failures, TELEMETRY.retryMs.length) - 1] ?? 3_600_000;
    logger.debug(`telemetry: ${reason} (${detail}); next try in ${Math.round(wait / 60_000)} min`);
    schedule(wait);
  };
  const beat = async () => {
    if (stopped) return;
    let saved: { lastSentAt?: number; clusterUuid?: string } = {};
    try {
      saved = ((await options.store.get(STATE_KEY)) as typeof saved | undefined) ?? {};
    } catch (error) {
      return retry("state_read", (error as Error).message);
    }
    const now = clock.now();
    if (saved.lastSentAt !== undefined && now - saved.lastSentAt < TELEMETRY.everyMs)
      return schedule(saved.lastSentAt + TELEMETRY.everyMs - now);
    const uuid = saved.clusterUuid ?? (await options.clusterUuid());
    if (!UUID.test(uuid)) {
      metrics.failures("invalid_identity");
      logger.debug("telemetry: no valid cluster UUID; not sent");
      return;
    }
    metrics.attempts();
    let status: number;
    try {
      const answer = await options.http.request({
        method: "POST",
        url: endpoint,
        headers: { "content-type": "application/json", "user-agent": "mon-telemetry/1" },
        body: JSON.stringify({ cluster_uuid: uuid, mon_version: options.version }),
        timeoutMs: TELEMETRY.attemptTimeoutMs,
      });
      status = answer.status;
    } catch (error) {
      return retry("network", (error as Error).message.split("\n")[0] ?? "network error");
    }
    if (status < 200 || status >= 300) return retry("http_status", `HTTP ${status}`);
    metrics.successes();
    failures = 0;
    if (!(await options.store.set(STATE_KEY, { lastSentAt: now, clusterUuid: uuid }).catch(() => false)))
      metrics.failures("state_write");
    schedule(TELEMETRY.everyMs);
  };
  return {
    start() {
      stopped = false;
      schedule(TELEMETRY.firstDelayMs);
    },
    stop() {
      stopped = true;
      timer?.();
    },
  };
}
