import { type KubeObject, timestamp } from "../store.ts";
import { ownedBy, podActive, podReady, withCondition } from "./api.ts";
import type { Controller } from "./controller.ts";
import { createPod } from "./replicaset.ts";
import { backOffAt, type TimingProfile } from "./timing.ts";

/**
 * The Job controller: runs up to `parallelism` pods until `completions` succeeded; a failed pod is replaced
 * after the back-off (10 s, 20 s, 40 s … 6 min); more than `backoffLimit` failures fail the Job
 * (FailureTarget, then Failed with reason BackoffLimitExceeded) and `activeDeadlineSeconds` fails it with
 * DeadlineExceeded. Completion writes SuccessCriteriaMet and Complete with completionTime, as v1.32 does.
 */
export function createJobController(timing: TimingProfile): Controller {
  // When each failed pod was seen failed: the back-off counts from there, as the Job controller's queue does.
  const failedAt = new Map<string, number>();
  return {
    name: "job",
    sync(api) {
      const now = api.now();
      let wake: number | undefined;
      const pods = api.list("Pod");
      for (const job of api.list("Job")) {
        const finished = (job.status?.conditions ?? []).some(
          (c: KubeObject) => (c.type === "Complete" || c.type === "Failed") && c.status === "True",
        );
        const mine = ownedBy(pods, job);
        const active = mine.filter(podActive);
        const failedPods = mine.filter((p) => p.status?.phase === "Failed");
        const succeeded = mine.filter((p) => p.status?.phase === "Succeeded" && !p.metadata.deletionTimestamp).length;
        const startTime = job.status?.startTime ?? timestamp(now);
        const counts = {
          startTime,
          active: active.length,
          ...(failedPods.length ? { failed: failedPods.length } : {}),
          ...(succeeded ? { succeeded } : {}),
          ready: active.filter(podReady).length,
          terminating: mine.filter((p) => p.metadata.deletionTimestamp).length,
          uncountedTerminatedPods: {},
        };
        if (finished) {
          for (const pod of active) api.remove("Pod", pod.metadata.namespace, pod.metadata.name);
          const { active: _done, ...rest } = { ...job.status, ...counts };
          api.setStatus(job, rest);
          continue;
        }
        const completions = job.spec?.completions ?? 1;
        const parallelism = job.spec?.parallelism ?? 1;
        const backoffLimit = job.spec?.backoffLimit ?? 6;
        const deadline = job.spec?.activeDeadlineSeconds;
        let failure: { reason: string; message: string } | undefined;
        if (failedPods.length > backoffLimit)
          failure = { reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" };
        else if (typeof deadline === "number" && now >= Date.parse(startTime) + deadline * 1000)
          failure = { reason: "DeadlineExceeded", message: "Job was active longer than specified deadline" };
        else if (typeof deadline === "number")
          wake = Math.min(wake ?? Number.POSITIVE_INFINITY, Date.parse(startTime) + deadline * 1000);
        if (failure) {
          let conditions = withCondition(
            job.status?.conditions,
            { type: "FailureTarget", status: "True", ...failure },
            now,
          );
          conditions = withCondition(conditions, { type: "Failed", status: "True", ...failure }, now);
          for (const pod of active) api.remove("Pod", pod.metadata.namespace, pod.metadata.name);
          const { active: _failed, ...rest } = counts;
          api.setStatus(job, { ...rest, conditions });
          api.event(job, "Warning", failure.reason, failure.message, "job-controller");
          continue;
        }
        if (succeeded >= completions) {
          let conditions = withCondition(
            job.status?.conditions,
            {
              type: "SuccessCriteriaMet",
              status: "True",
              reason: "CompletionsReached",
              message: "Reached expected number of succeeded pods",
            },
            now,
          );
          conditions = withCondition(
            conditions,
            {
              type: "Complete",
              status: "True",
              reason: "CompletionsReached",
              message: "Reached expected number of succeeded pods",
            },
            now,
          );
          api.setStatus(job, { ...counts, conditions, completionTime: timestamp(now) });
          api.event(job, "Normal", "Completed", "Job completed", "job-controller");
          continue;
        }
        const want = Math.min(parallelism, completions - succeeded) - active.length;
        for (const p of failedPods) if (!failedAt.has(p.metadata.uid)) failedAt.set(p.metadata.uid, now);
        const lastFailure = Math.max(0, ...failedPods.map((p) => failedAt.get(p.metadata.uid) ?? now));
        const notBefore = failedPods.length ? lastFailure + backOffAt(timing.jobBackOffMs, failedPods.length - 1) : 0;
        if (want > 0 && now >= notBefore) for (let i = 0; i < want; i++) createPod(api, job);
        else if (want > 0) wake = Math.min(wake ?? notBefore, notBefore);
        const fresh = ownedBy(api.list("Pod", job.metadata.namespace), job).filter(podActive);
        const { active: _before, ...rest } = { ...job.status, ...counts };
        api.setStatus(job, { ...rest, ...(fresh.length ? { active: fresh.length } : {}) });
      }
      return wake;
    },
  };
}
