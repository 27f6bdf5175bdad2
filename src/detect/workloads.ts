import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { CronJob } from "../model/kube.ts";
import { condition, finding, refOf } from "./build.ts";
import { parseTime } from "./evidence.ts";
import { routedServices, userFacingService } from "./reach.ts";

/** How long a Deployment or StatefulSet may have no available replica before it is reported (rollouts and scale-ups pass through 0). */
const UNAVAILABLE_HOLD_MS = 120_000;

/**
 * The workload family (spec 1.2; failure-catalogue 1.D): Deployments and StatefulSets with no available
 * replica, rollouts past their progress deadline, controllers that cannot create pods, failed Jobs and
 * failing CronJobs. Paused or deleting workloads and ones scaled to zero are not failures. Pure.
 */
export function detectWorkloads(inventory: InventoryView, now: number): Finding[] {
  const out: Finding[] = [];
  // Services users reach through an Ingress or a Gateway API route, computed once per pass when needed.
  let routed: Map<string, string> | undefined;
  for (const kind of ["Deployment", "StatefulSet"] as const) {
    for (const w of inventory.list(kind)) {
      if (w.metadata.deletionTimestamp || (w.spec && "paused" in w.spec && w.spec.paused)) continue;
      const ref = refOf({ ...w, kind });
      const name = `${w.metadata.namespace}/${w.metadata.name}`;
      const wanted = w.spec?.replicas ?? 1;
      const available = w.status?.availableReplicas ?? 0;
      if (wanted >= 1 && available === 0) {
        const cond = condition(w, "Available");
        const since = parseTime(
          cond?.status === "False" ? cond.lastTransitionTime : w.metadata?.creationTimestamp,
          now,
        );
        // Page rule (b), spec 3.2: the last replica of a user-facing workload (one a user-reachable Service
        // selects) is down.
        routed ??= routedServices(inventory);
        const labels = (w.spec?.template?.metadata?.labels ?? {}) as Record<string, string>;
        const facing = userFacingService(inventory, w.metadata.namespace, labels, routed);
        out.push(
          finding({
            reason: "WorkloadUnavailable",
            object: ref,
            // What a single replica cost (spec 1.6): nothing else served while it was down.
            summary: `${kind.toLowerCase()} ${name} has no available replica (wants ${wanted})${wanted === 1 ? "; a single replica, so nothing else served while it was down" : ""}${facing ? `; users reach it through ${facing}` : ""}`,
            evidence: [
              ["replicas wanted", wanted],
              ["ready", w.status?.readyReplicas ?? 0],
              ["updated", w.status?.updatedReplicas ?? 0],
              ["condition", cond?.message],
              ["user-facing", facing ?? "no"],
            ],
            since,
            now,
            holdMs: UNAVAILABLE_HOLD_MS,
            ...(facing ? { pageRule: "LastReplicaDown" } : {}),
          }),
        );
      }
      const progressing = condition(w, "Progressing");
      if (
        kind === "Deployment" &&
        progressing?.status === "False" &&
        progressing.reason === "ProgressDeadlineExceeded"
      ) {
        out.push(
          finding({
            reason: "ProgressDeadlineExceeded",
            object: ref,
            summary: `rollout of deployment ${name} is stuck: ${progressing.message ?? "progress deadline exceeded"}`,
            evidence: [
              ["message", progressing.message],
              [
                "deadline",
                `${(w.spec && "progressDeadlineSeconds" in w.spec && w.spec.progressDeadlineSeconds) || 600} s`,
              ],
              ["since", progressing.lastTransitionTime],
            ],
            since: parseTime(progressing.lastTransitionTime, now),
            now,
          }),
        );
      }
    }
  }
  for (const kind of ["ReplicaSet", "Deployment", "StatefulSet", "DaemonSet"] as const) {
    for (const w of inventory.list(kind)) {
      const failure = condition(w, "ReplicaFailure");
      if (failure?.status !== "True") continue;
      out.push(
        finding({
          reason: "ReplicaCreateFailed",
          object: refOf({ ...w, kind }),
          summary: `${kind.toLowerCase()} ${w.metadata.namespace}/${w.metadata.name} cannot create pods: ${failure.message ?? failure.reason ?? ""}`,
          evidence: [
            ["reason", failure.reason],
            ["message", failure.message],
          ],
          since: parseTime(failure.lastTransitionTime, now),
          now,
        }),
      );
    }
  }
  for (const job of inventory.list("Job")) {
    const failed = condition(job, "Failed");
    if (failed?.status !== "True") continue;
    out.push(
      finding({
        reason: "JobFailed",
        object: refOf({ ...job, kind: "Job" }),
        summary: `job ${job.metadata.namespace}/${job.metadata.name} failed: ${failed.reason ?? ""}${failed.message ? ` — ${failed.message}` : ""}`,
        evidence: [
          ["reason", failed.reason],
          ["message", failed.message],
          ["failed pods", job.status?.failed ?? 0],
          ["started", job.status?.startTime],
        ],
        since: parseTime(failed.lastTransitionTime, now),
        now,
      }),
    );
  }
  for (const cron of inventory.list("CronJob")) {
    const failing = failingCronJob(inventory, cron, now);
    if (failing) out.push(failing);
  }
  return out;
}

// --- internal ---

function failingCronJob(inventory: InventoryView, cron: CronJob, now: number): Finding | undefined {
  const jobs = inventory
    .list("Job")
    .filter((j) => (j.metadata.ownerReferences ?? []).some((r) => r.uid === cron.metadata.uid));
  const newest = jobs.sort((a, b) =>
    String(b.metadata?.creationTimestamp).localeCompare(String(a.metadata?.creationTimestamp)),
  )[0];
  if (!newest || condition(newest, "Failed")?.status !== "True") return undefined;
  const lastSuccess = parseTime(cron.status?.lastSuccessfulTime, 0);
  const lastSchedule = parseTime(cron.status?.lastScheduleTime, now);
  if (lastSuccess >= lastSchedule) return undefined;
  const failedRuns = jobs.filter(
    (j) => condition(j, "Failed")?.status === "True" && parseTime(j.metadata?.creationTimestamp, 0) > lastSuccess,
  ).length;
  const name = `${cron.metadata.namespace}/${cron.metadata.name}`;
  return finding({
    reason: "CronJobFailing",
    object: refOf({ ...cron, kind: "CronJob" }),
    summary: `cronjob ${name}: its last ${failedRuns} run${failedRuns === 1 ? "" : "s"} failed (newest: ${newest.metadata.name})`,
    evidence: [
      ["newest run", newest.metadata.name],
      ["failed runs since last success", failedRuns],
      ["last success", cron.status?.lastSuccessfulTime ?? "never"],
      ["last schedule", cron.status?.lastScheduleTime],
    ],
    since: parseTime(condition(newest, "Failed")?.lastTransitionTime, now),
    now,
  });
}
