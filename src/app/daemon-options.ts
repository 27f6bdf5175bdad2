import type { LoadedConfig } from "../config/load.ts";
import type { HealthRegistry } from "../health/registry.ts";
import type { KubeConnection } from "../kube/connection.ts";
import type { Inventory } from "../kube/inventory.ts";
import type { Elector } from "../leader/elector.ts";
import type { Metrics } from "../metrics.ts";
import type { Edition } from "../model/edition.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { Leader } from "./leader-types.ts";
import type { Prepared } from "./delivery/prepare.ts";

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
  /**
   * The state lock was lost (the API server unreachable, another holder): stop deciding and delivering at once
   * (`leadership_lost`), keep watching, stand by and campaign again (issue 53); the next term of this replica
   * keeps what the last one left when nobody led in between, else reloads the state store.
   */
  leadershipLost(): void;
  /** Stops informers, flushes delivery for up to `drainMs`, closes the health server. */
  stop(drainMs?: number): Promise<void>;
}
