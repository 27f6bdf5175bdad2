import type { Config } from "../../config/schema.ts";
import type { Delivery } from "../../deliver/delivery.ts";
import type { LifecycleState } from "../../incident/lifecycle.ts";
import type { Incident } from "../../model/incident.ts";
import { renderStartupNotice, renderUnwatchedNotice } from "../../notify/notice.ts";
import { renderRestoredSummary } from "../../notify/summary.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import { VERSION } from "../../version.ts";
import type { HealthRegistry } from "../../health/registry.ts";
import type { UsageSources } from "../pass/usage-sources.ts";
import { type BlindThread, createSightWatch } from "../replica/sight.ts";
import type { Outgoing } from "./outgoing.ts";
import type { DaemonState } from "../replica/state.ts";

/** The shortest blind period providers hear of, ms: shorter ones (a watch reconnecting) are only logged. */
export const UNWATCHED_NOTICE_MS = 60_000;

/** The notices mon sends about itself (spec 6), as the leader's work tells them. */
export interface Notices {
  /** The work started: the startup notice (not for an in-process restart), and the restored summary after the first pass. */
  started(): void;
  /** A pass decided: the restored summary goes out after the first (`now` epoch ms). */
  afterPass(state: LifecycleState, now: number): void;
  /**
   * mon was blind from `from` to `to` (epoch ms): logged; from UNWATCHED_NOTICE_MS on, providers hear it —
   * as the end of the blind spot's thread when its start was told (app/replica/sight.ts).
   */
  unwatched(period: { from: number; to: number; reason: string }): void;
  /** Stops watching what mon sees. */
  stop(): void;
}

/**
 * The startup notice (with the last time alive and a state reset), the blind-period notice, and, restarted
 * with its state (Pro), one summary naming the open problems whose threads continue — after the first pass
 * has seen the cluster, so a problem that ended while mon was down is resolved, not called "still open".
 * `restored` is the lifecycle read from the state store (absent for an in-process restart, `carried`).
 * `app.disableStartupMessage` silences the startup notice only: what mon could not see is always told.
 */
export function createNotices(deps: {
  config: Config;
  clock: Clock;
  logger: Logger;
  outgoing: Outgoing;
  delivery: Delivery;
  state: DaemonState;
  restored: LifecycleState | undefined;
  /** The blind spots the previous process told and kept (state file): closed once mon sees again. */
  blindThreads?: readonly BlindThread[];
  /** The usage rounds: the kubelets' statistics count as seen once a round has read a node. */
  usage?: Pick<UsageSources, "latest">;
  carried: boolean;
  health: HealthRegistry;
}): Notices {
  const { config, clock, outgoing } = deps;
  const cluster = config.app.clusterName;
  let pending: Incident[] | undefined;
  // What mon stops seeing is told while it lasts, not only after (issue 32).
  const sight = createSightWatch({
    health: deps.health,
    clock,
    cluster,
    send: (message) => outgoing.notice(message, clock.now()),
    restored: deps.blindThreads ?? [],
    keep: (open) => deps.state.keepBlindThreads(open),
    shows: (key) => key !== "kubelet-stats" || readNode(deps.usage?.latest().kubelet),
  });
  return {
    stop: () => sight.stop(),
    started() {
      sight.start();
      const notice = renderStartupNotice(VERSION, cluster, clock.now(), {
        ...(deps.state.lastAlive !== undefined ? { lastAlive: deps.state.lastAlive } : {}),
        ...(deps.state.reset ? { stateReset: true } : {}),
      });
      // An in-process restart (the overlay changed) is not a start: providers hear nothing of it.
      if (!config.app.disableStartupMessage && !deps.carried) outgoing.notice(notice, clock.now());
      const continued = deps.restored
        ? [...deps.restored.incidents.values()].filter((i) => i.phase === "open" && i.announced)
        : [];
      if (continued.length && !deps.carried) pending = continued;
    },
    afterPass(state, now) {
      if (!pending) return;
      const stillOpen = pending.filter((i) => state.incidents.get(i.id)?.phase === "open");
      pending = undefined;
      if (stillOpen.length)
        outgoing.send(
          [{ message: renderRestoredSummary(stillOpen, now, cluster, deps.delivery.foldedAt()).message }],
          now,
        );
    },
    unwatched(period) {
      const seconds = Math.round((period.to - period.from) / 1000);
      deps.logger.warn(
        `the cluster was not watched for ${seconds} s (${period.reason}); what changed meanwhile is applied now`,
      );
      if (sight.seesAgain("caches", period.to)) return;
      if (period.to - period.from < UNWATCHED_NOTICE_MS) return;
      outgoing.notice(renderUnwatchedNotice(cluster, period, clock.now()), clock.now());
    },
  };
}

/** True when a kubelet statistics round read at least one node. */
function readNode(round: { nodes: number; failures: ReadonlyMap<string, string> } | undefined): boolean {
  return round !== undefined && round.nodes > round.failures.size;
}
