import { cronJobOfRunName } from "../model/cronjob-run.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { Pod } from "../model/kube.ts";
import { parseTime } from "./evidence.ts";

/**
 * Whether a run of a CronJob is history (failure-catalogue A6/D8; issue 40): a later run of the same CronJob
 * succeeded after it began, so what this run's Job and pods show — failed, exited non-zero — is over, even though
 * the CronJob keeps the failed Job (`failedJobsHistoryLimit`). The run is named by its Job (`namespace`,
 * `jobName`); its CronJob is the Job's controller owner, or, when the Job is not cached, the one its name names
 * (model/cronjob-run.ts). The run began when its Job was created, else at its scheduled minute. Pure.
 */
export function supersededRun(inventory: InventoryView, namespace: string | undefined, jobName: string): boolean {
  const job = inventory.get("Job", namespace, jobName);
  const owner = job?.metadata.ownerReferences?.find((r) => r.controller && r.kind === "CronJob")?.name;
  const cronJobName = owner ?? (job ? undefined : cronJobOfRunName(jobName));
  if (!cronJobName) return false;
  const cronJob = inventory.get("CronJob", namespace, cronJobName);
  const lastSuccess = parseTime(cronJob?.status?.lastSuccessfulTime, 0);
  if (!lastSuccess) return false;
  const scheduled = Number(/-(\d{8,10})$/.exec(jobName)?.[1] ?? Number.NaN) * 60_000;
  const began = parseTime(
    job?.metadata.creationTimestamp,
    Number.isNaN(scheduled) ? Number.POSITIVE_INFINITY : scheduled,
  );
  return lastSuccess > began;
}

/** Whether a pod is part of a CronJob's run that is history (`supersededRun`). Pure. */
export function podOfSupersededRun(inventory: InventoryView, pod: Pod): boolean {
  const job = pod.metadata?.ownerReferences?.find((r) => r.controller && r.kind === "Job");
  return job ? supersededRun(inventory, pod.metadata.namespace, job.name) : false;
}
