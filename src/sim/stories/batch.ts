import { fate, NS, remove, sh, type Story } from "./story.ts";

/** A Job whose every attempt exits 1 until its back-off limit; the user deletes it ten minutes later. */
export const jobFailsThenDeleted: Story = {
  name: "job-fails-then-deleted",
  description: "every attempt of Job migrate exits 1 until its backoffLimit; the user deletes the Job",
  nodes: 2,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Job migrate (backoffLimit 2)",
      run: (cluster) =>
        cluster.apply({
          apiVersion: "batch/v1",
          kind: "Job",
          metadata: { namespace: NS, name: "migrate" },
          spec: {
            backoffLimit: 2,
            template: {
              metadata: { annotations: fate("fail", 'Error: relation "orders" does not exist\n') },
              spec: {
                restartPolicy: "Never",
                containers: [sh("migrate", `echo 'Error: relation "orders" does not exist'; exit 1`)],
              },
            },
          },
        }),
    },
    { t: 900, say: "kubectl delete job migrate", run: (cluster) => remove(cluster, "jobs", "migrate", "batch") },
  ],
  fixedAt: 900,
  lengthSeconds: 1_200,
  quick: { at: [0, 420], fixedAt: 420, lengthSeconds: 540 },
  realNode: "together",
};

/** A CronJob every minute whose Jobs run `script` once, never retried, keeping one failed and one done Job. */
function cronJob(name: string, script: string, annotations: Record<string, string> = {}) {
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { namespace: NS, name },
    spec: {
      schedule: "* * * * *",
      concurrencyPolicy: "Forbid",
      failedJobsHistoryLimit: 1,
      successfulJobsHistoryLimit: 1,
      jobTemplate: {
        spec: {
          backoffLimit: 0,
          template: {
            metadata: { labels: { app: name }, annotations },
            spec: { restartPolicy: "Never", containers: [sh(name, script)] },
          },
        },
      },
    },
  };
}

/**
 * Issue 40, observation 2: every run of a CronJob fails; the CronJob controller deletes the older failed Jobs
 * (history limit 1) while their pods are still there, and Jobs arrive in the cache after their pods. Whichever
 * of them mon has, a run is the CronJob's: one thread, never the run's own. Fixed by a new template.
 */
export const cronJobFailingRuns: Story = {
  name: "cronjob-failing-runs",
  description: "every minute's run of CronJob report fails; its template is fixed and the next run succeeds",
  nodes: 2,
  steps: [
    {
      t: 0,
      say: "kubectl apply: CronJob report (every minute, one try per run, keeps one failed Job)",
      run: (cluster) =>
        cluster.apply(
          cronJob(
            "report",
            'echo "Error: report query timed out"; exit 1',
            fate("fail", "Error: report query timed out\n"),
          ),
        ),
    },
    {
      t: 540,
      say: "kubectl apply: report's template fixed (the next run succeeds)",
      run: (cluster) => cluster.apply(cronJob("report", 'echo "report written"')),
    },
  ],
  fixedAt: 540,
  lengthSeconds: 840,
  // Fixed before the announcement's 5-minute cooldown can end: a real CronJob runs on the minute, and a run
  // failing beside the kept failed one just past the cooldown (two failed pods for a moment) was news there.
  quick: { at: [0, 240], fixedAt: 240, lengthSeconds: 480 },
  realNode: "together",
};
