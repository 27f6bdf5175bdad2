/**
 * The CronJob a Job was created by, read from the Job's name alone: the CronJob controller names each run
 * `<cronjob>-<scheduled time in minutes since the epoch>` (kube-controller-manager's `getJobName`). So a run is
 * its CronJob's whichever of them the cache holds — a pod whose Job was already deleted (history limit) or not
 * yet seen (its watch arrives later) still belongs to the CronJob (issue 40). Undefined when the name does not
 * have that form; the caller checks that such a CronJob exists in the Job's namespace.
 */
export function cronJobOfRunName(jobName: string): string | undefined {
  // Minutes since the epoch have had 8 digits since 1979 and keep them until 2160.
  const m = /^(.+)-(\d{8,10})$/.exec(jobName);
  return m?.[1];
}
