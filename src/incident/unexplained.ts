import type { Incident } from "../model/incident.ts";

/**
 * Reasons that say what is down without saying why: a workload with no available replica, a pod that is not
 * ready, a rollout that stopped, a Service with no ready endpoint. An incident made only of them has no
 * finding naming a cause.
 */
const EFFECT_ONLY: ReadonlySet<string> = new Set([
  "WorkloadUnavailable",
  "ReadinessProbeFailing",
  "ProgressDeadlineExceeded",
  "ServiceNoReadyEndpoints",
]);

/**
 * True when no finding of the incident names a cause, only effects (`mon_unexplained_total{kind="incident"}`,
 * spec 4.2): the engineer is told what is down and must find out why. Pure.
 */
export function isUnexplained(incident: Incident): boolean {
  return incident.findings.length > 0 && incident.findings.every((f) => EFFECT_ONLY.has(f.reason));
}
