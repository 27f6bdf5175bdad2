import type { Finding } from "../model/finding.ts";
import type { InventoryChange, InventoryView } from "../model/inventory.ts";
import type { CronJob, Deployment, Job, ObjectLike, StatefulSet } from "../model/kube.ts";
import { supersededRun } from "./cronjob-runs.ts";
import { condition, finding, refOf } from "./build.ts";
import { parseTime } from "./evidence.ts";
import { changedKeys, FINDING_RESULTS, isPartial, ObjectMemo, sortedByKey, TimeEdges } from "./incremental.ts";
import { routedServices, userFacingService } from "./reach.ts";

type Workload = Deployment | StatefulSet;

/** How long a Deployment or StatefulSet may have no available replica before it is reported (rollouts and scale-ups pass through 0). */
const UNAVAILABLE_HOLD_MS = 120_000;

/**
 * The workload family (spec 1.2; failure-catalogue 1.D): Deployments and StatefulSets with no available
 * replica, rollouts past their progress deadline, controllers that cannot create pods, failed Jobs and
 * failing CronJobs. Paused or deleting workloads and ones scaled to zero are not failures. Pure.
 */
export function detectWorkloads(inventory: InventoryView, now: number): Finding[] {
  // Services users reach through an Ingress or a Gateway API route, computed once per pass when needed.
  let routed: Map<string, string> | undefined;
  const routes = () => (routed ??= routedServices(inventory));
  const out: Finding[] = [];
  for (const kind of WORKLOAD_KINDS)
    for (const w of inventory.list(kind)) out.push(...detectWorkload(kind, w, inventory, new TimeEdges(now), routes));
  // One order for the full and the incremental family.
  return sortedByKey(out);
}

/** The kinds of the workload family, each a per-object part of it. */
const WORKLOAD_KINDS = ["Deployment", "StatefulSet", "ReplicaSet", "DaemonSet", "Job", "CronJob"] as const;
type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

/**
 * The workload family, incremental (detect/incremental.ts): a workload is read again only when it changed,
 * when what it read changed (the Services and routes of a workload that is down, a CronJob's Jobs), or when
 * time reached an instant its result depends on; a healthy workload is not remembered. Equals
 * `detectWorkloads` (incremental.test.ts). `noteChange` takes every Inventory change.
 */
export function createIncrementalWorkloads(): {
  detect: (inventory: InventoryView, now: number) => Finding[];
  noteChange: (change: InventoryChange, keysOf?: () => readonly string[]) => void;
  /** The earliest instant after `now` a remembered workload's findings change with time alone. */
  nextEdge: (now: number) => number | undefined;
} {
  const memos = WORKLOAD_KINDS.map(
    (kind) => [kind, new ObjectMemo<ObjectLike>({ kind, ...FINDING_RESULTS, localKeys: () => [] })] as const,
  );
  return {
    nextEdge(now) {
      let next: number | undefined;
      for (const [, memo] of memos) {
        const at = memo.nextEdge(now);
        if (at !== undefined && (next === undefined || at < next)) next = at;
      }
      return next;
    },
    noteChange(change, keysOf = () => changedKeys(change)) {
      let keys: readonly string[] | undefined;
      const once = () => (keys ??= keysOf());
      for (const [, memo] of memos) memo.noteChange(change, once);
    },
    detect(inventory, now) {
      if (isPartial(inventory)) return detectWorkloads(inventory, now);
      const out: Finding[] = [];
      for (const [kind, memo] of memos) {
        const found = memo.run(inventory, now, (w, view, time) => {
          let routed: Map<string, string> | undefined;
          return detectWorkload(kind, w, view, time, () => (routed ??= routedServices(view)));
        });
        for (const f of found) out.push(f);
      }
      return sortedByKey(out);
    },
  };
}

/** The findings of one workload of `kind`. Reads time only through `time`. Pure. */
function detectWorkload(
  kind: WorkloadKind,
  w: ObjectLike,
  inventory: InventoryView,
  time: TimeEdges,
  routes: () => Map<string, string>,
): Finding[] {
  const now = time.now;
  const out: Finding[] = [];
  if (kind === "Job") {
    const job = w as Job;
    const failed = condition(job, "Failed");
    if (failed?.status !== "True" || supersededRun(inventory, job.metadata.namespace, job.metadata.name)) return out;
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
        since: time.time(failed.lastTransitionTime),
        now,
        // A CronJob's run that gave up restates what its pods showed (the CronJob runs again): never news once
        // they were told (found on the real control plane, where the Job is marked Failed after its pod).
        // Held a minute, as CronJobFailing, so the pod that says why is told first, whatever reaches mon first.
        ...(ownedByCronJob(job) ? { symptom: true, holdMs: 60_000 } : {}),
      }),
    );
    return out;
  }
  if (kind === "CronJob") {
    const failing = failingCronJob(inventory, w as CronJob, time);
    return failing ? [failing] : [];
  }
  if (kind === "Deployment" || kind === "StatefulSet")
    out.push(...unavailable(kind, w as Workload, time, inventory, routes));
  const failure = condition(w as Workload, "ReplicaFailure");
  if (failure?.status === "True")
    out.push(
      finding({
        reason: "ReplicaCreateFailed",
        object: refOf({ ...w, kind }),
        summary: `${kind.toLowerCase()} ${w.metadata.namespace}/${w.metadata.name} cannot create pods: ${failure.message ?? failure.reason ?? ""}`,
        evidence: [
          ["reason", failure.reason],
          ["message", failure.message],
        ],
        since: time.time(failure.lastTransitionTime),
        now,
      }),
    );
  return out;
}

/** A Deployment or StatefulSet with no available replica, or a rollout past its progress deadline. */
function unavailable(
  kind: "Deployment" | "StatefulSet",
  w: Workload,
  time: TimeEdges,
  inventory: InventoryView,
  routes: () => Map<string, string>,
): Finding[] {
  const now = time.now;
  const out: Finding[] = [];
  if (w.metadata.deletionTimestamp || (w.spec && "paused" in w.spec && w.spec.paused)) return out;
  // Every workload is looked at on every pass: its reference is made only for one that fails.
  const ref = () => refOf({ ...w, kind });
  const name = `${w.metadata.namespace}/${w.metadata.name}`;
  const wanted = w.spec?.replicas ?? 1;
  const available = w.status?.availableReplicas ?? 0;
  const cond = condition(w, "Available");
  // A controller that still says Available is behind its own spec (a scale-up it has not written yet): the
  // condition turns False, with the time it did, once it has.
  if (wanted >= 1 && available === 0 && cond?.status !== "True") {
    // Unavailable since the condition says; without one (a StatefulSet), since its newest pod was created, or
    // since it was: a StatefulSet scaled up from zero is starting, not failing.
    const since =
      cond?.status === "False"
        ? time.time(cond.lastTransitionTime)
        : Math.max(
            time.time(w.metadata?.creationTimestamp),
            kind === "StatefulSet" ? newestPodOf(w as StatefulSet, inventory) : 0,
          );
    // Page rule (b), spec 3.2: the last replica of a user-facing workload (one a user-reachable Service
    // selects) is down.
    const labels = (w.spec?.template?.metadata?.labels ?? {}) as Record<string, string>;
    const facing = userFacingService(inventory, w.metadata.namespace, labels, routes());
    out.push(
      finding({
        reason: "WorkloadUnavailable",
        object: ref(),
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
        symptom: true,
        ...(facing ? { pageRule: "LastReplicaDown" } : {}),
      }),
    );
  }
  const progressing = condition(w, "Progressing");
  if (kind === "Deployment" && progressing?.status === "False" && progressing.reason === "ProgressDeadlineExceeded") {
    out.push(
      finding({
        reason: "ProgressDeadlineExceeded",
        object: ref(),
        summary: `rollout of deployment ${name} is stuck: ${progressing.message ?? "progress deadline exceeded"}`,
        evidence: [
          ["message", progressing.message],
          ["deadline", `${(w.spec && "progressDeadlineSeconds" in w.spec && w.spec.progressDeadlineSeconds) || 600} s`],
          ["since", progressing.lastTransitionTime],
        ],
        since: time.time(progressing.lastTransitionTime),
        now,
        symptom: true,
      }),
    );
  }
  return out;
}

// --- internal ---

/**
 * When the newest pod of a StatefulSet was created (epoch ms), 0 when it has none: its pods are `<name>-<n>`
 * for n below its replicas, looked up one by one (no list of every pod on every evaluation).
 */
function newestPodOf(w: StatefulSet, inventory: InventoryView): number {
  let newest = 0;
  const replicas = Math.min(w.spec?.replicas ?? 1, 1_000);
  for (let n = 0; n < replicas; n++) {
    const pod = inventory.get("Pod", w.metadata.namespace, `${w.metadata.name}-${n}`);
    if (!pod?.metadata.ownerReferences?.some((r) => r.uid === w.metadata.uid)) continue;
    newest = Math.max(newest, parseTime(pod.metadata.creationTimestamp, 0));
  }
  return newest;
}

function failingCronJob(inventory: InventoryView, cron: CronJob, time: TimeEdges): Finding | undefined {
  const now = time.now;
  const jobs = inventory
    .list("Job")
    .filter((j) => (j.metadata.ownerReferences ?? []).some((r) => r.uid === cron.metadata.uid));
  // The newest run that finished: a run still going is no success yet, so the CronJob stays failing while its
  // next run is under way (on a real control plane each minute's run starts before the last failed one is
  // history; issue 40).
  const finished = (j: Job) => condition(j, "Failed")?.status === "True" || condition(j, "Complete")?.status === "True";
  const newest = jobs
    .filter(finished)
    .sort((a, b) => String(b.metadata?.creationTimestamp).localeCompare(String(a.metadata?.creationTimestamp)))[0];
  if (!newest || condition(newest, "Failed")?.status !== "True") return undefined;
  const lastSuccess = parseTime(cron.status?.lastSuccessfulTime, 0);
  const lastSchedule = time.time(cron.status?.lastScheduleTime);
  if (lastSuccess >= lastSchedule) return undefined;
  const failedRuns = jobs.filter(
    (j) => condition(j, "Failed")?.status === "True" && parseTime(j.metadata?.creationTimestamp, 0) > lastSuccess,
  ).length;
  const name = `${cron.metadata.namespace}/${cron.metadata.name}`;
  return finding({
    reason: "CronJobFailing",
    object: refOf({ ...cron, kind: "CronJob" }),
    // It restates what its run's Job and pods show: never news once they were told.
    symptom: true,
    summary: `cronjob ${name}: its last ${failedRuns} run${failedRuns === 1 ? "" : "s"} failed (newest: ${newest.metadata.name})`,
    evidence: [
      ["newest run", newest.metadata.name],
      ["failed runs since last success", failedRuns],
      ["last success", cron.status?.lastSuccessfulTime ?? "never"],
      ["last schedule", cron.status?.lastScheduleTime],
    ],
    since: time.time(condition(newest, "Failed")?.lastTransitionTime),
    now,
  });
}

/** Whether a Job is a CronJob's run (its controller owner, or the CronJob controller's name for it). */
function ownedByCronJob(job: Job): boolean {
  return (job.metadata.ownerReferences ?? []).some((r) => r.controller && r.kind === "CronJob");
}
