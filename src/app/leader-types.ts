import type { Delivery } from "../deliver/delivery.ts";
import type { HealthRegistry } from "../health/registry.ts";
import type { LifecycleState } from "../incident/lifecycle.ts";
import type { KubeConnection } from "../kube/connection.ts";
import type { Inventory } from "../kube/inventory.ts";
import type { LicenseManager } from "../license/manager.ts";
import type { Metrics } from "../metrics.ts";
import type { Edition } from "../model/edition.ts";
import type { UsageView } from "../model/inventory.ts";
import type { ProbeRunner } from "../probe/runner.ts";
import type { Router } from "../route/router.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { DiagnosticsSource } from "../server/diagnostics.ts";
import type { StatusInput } from "../status/report.ts";
import type { DaemonOptions } from "./daemon-options.ts";
import type { LicenseHandle } from "./edition/license.ts";
import type { PassLoop } from "./pass/loop.ts";
import type { Prepared } from "./delivery/prepare.ts";
import type { DaemonState } from "./replica/state.ts";
import type { UsageSources } from "./pass/usage-sources.ts";

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
  /**
   * When this process's required caches had synced once before this work began (a warm standby taking over,
   * blind since an outage or not): the objects (`Kind/namespace/name`) with a finding when they first synced
   * (model/baseline.ts).
   */
  readonly failingAtSync?: ReadonlySet<string>;
  /**
   * The control plane's last absence this replica saw, across its terms (the election's unanswered rounds, the
   * caches' blind periods): the pass reads it (UsageView.controlPlaneAway, issue 53).
   */
  readonly controlPlaneAway?: () => UsageView["controlPlaneAway"];
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
  /**
   * Stops this work at once because the state lock was lost (issue 53): no decision, no send, no call out — a
   * new leader could double them — and returns what it kept, open, for this replica's next term: the outbox
   * stays as it is, nothing is drained.
   */
  depose(): Carried;
}
