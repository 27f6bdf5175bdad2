import type { RuntimeEnv } from "../../config/env.ts";
import type { HealthRegistry } from "../../health/registry.ts";
import type { KubeConnection } from "../../kube/connection.ts";
import { createElector, type Elector } from "../../leader/elector.ts";
import type { ELECTION } from "../../leader/decide.ts";
import type { Metrics } from "../../metrics.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";

/** The Lease name when neither MON_LEADER_ELECTION_NAME nor MON_INSTALLATION_ID is set (installation `mon`). */
export const DEFAULT_LEASE_NAME = "mon-leader";

/**
 * The state lock of `mon run` (spec 1.9, 3.3; docs/leadership.md): a Lease named by MON_LEADER_ELECTION_NAME,
 * else `<MON_INSTALLATION_ID>-leader`, else `mon-leader`, in POD_NAMESPACE, held as POD_NAME (else the host
 * name). In a cluster mon always takes it (Community too, so a rolling update's new pod waits for the old one).
 * Outside a cluster (a kubeconfig on a workstation) it is taken only when a Lease name is configured: a trial
 * run must not need a `mon` namespace. Returns undefined when no lock is used.
 */
export function electorFor(options: {
  runtime: RuntimeEnv;
  connection: KubeConnection;
  clock: Clock;
  logger: Logger;
  onLost: () => void;
  timing?: Partial<typeof ELECTION>;
}): Elector | undefined {
  const { runtime } = options;
  if (!runtime.leaseName && options.connection.source !== "in-cluster") {
    options.logger.info("state lock: not used (outside a cluster; set MON_INSTALLATION_ID to take it)");
    return undefined;
  }
  return createElector({
    connection: options.connection,
    namespace: runtime.podNamespace,
    name: runtime.leaseName ?? DEFAULT_LEASE_NAME,
    identity: runtime.podName,
    clock: options.clock,
    logger: options.logger,
    onLost: options.onLost,
    ...(options.timing ? { timing: options.timing } : {}),
  });
}

/**
 * Waits until this replica holds the state lock (a live, available, not ready standby meanwhile: the required
 * `leadership` component is pending, until the leader's work has started) and returns its fencing term. `cold`: this replica lists the cluster only
 * once it leads (a Community standby), which the waiting line says; `lost`: it campaigns again after losing the
 * lock (issue 53), which `/health` says (`leadership_lost`). Counts mon_leadership_acquisitions_total
 * and, when another replica held it before, mon_leader_takeovers_total.
 */
export async function awaitLeadership(
  elector: Elector,
  deps: { health: HealthRegistry; metrics: Metrics; logger: Logger; cold?: boolean; lost?: boolean },
): Promise<number> {
  const { health, metrics, logger } = deps;
  health.setLock(() => elector.status());
  health.set("leadership", "pending", { required: true, ...(deps.lost ? { reason: "leadership_lost" as const } : {}) });
  const { namespace, name, identity } = elector.status();
  const caches = deps.cold ? "; caches stay cold until then (a warm standby is Pro: set license.key)" : "";
  logger.info(`waiting for the state lock (Lease ${namespace}/${name}, identity ${identity})${caches}`);
  // `leadership` turns ok once the leader's work has restored its state (app/work.ts), not at the acquisition:
  // /readyz answers 200 only on a leader that restored its state (spec 4.1).
  const term = await elector.leading();
  metrics.leadershipAcquisitions.inc();
  if (term > 0) metrics.leaderTakeovers.inc();
  return term;
}
