import { type KubeObject, timestamp } from "../store.ts";
import { controllerRef, ownedBy } from "./api.ts";
import type { Controller } from "./controller.ts";

/**
 * The CronJob controller (v2, as kube-controller-manager v1.32 runs it): at each scheduled minute of a CronJob
 * that is not suspended it creates the Job `<cronjob>-<scheduled time in minutes since the epoch>` from its
 * `jobTemplate`, owned by the CronJob (controller reference); `concurrencyPolicy` Forbid skips a run while one
 * is active and Replace deletes the active one; finished Jobs beyond `successfulJobsHistoryLimit` (3) and
 * `failedJobsHistoryLimit` (1) are deleted, oldest first (their pods go with them, background propagation);
 * `status.active`, `lastScheduleTime` and `lastSuccessfulTime` are kept. Schedules are five-field cron in UTC
 * (`*`, `*\/n`, `a-b`, `a,b`). A run missed by more than `startingDeadlineSeconds` is skipped.
 */
export function createCronJobController(): Controller {
  /** Runs already said finished (SawCompletedJob). */
  const sawCompleted = new Set<string>();
  return {
    name: "cronjob",
    sync(api) {
      const now = api.now();
      let wake: number | undefined;
      const jobs = api.list("Job");
      for (const cronJob of api.list("CronJob")) {
        const mine = ownedBy(jobs, cronJob).sort((a, b) => scheduledOf(a) - scheduledOf(b));
        const finished = (job: KubeObject) => conditionOf(job, "Complete") ?? conditionOf(job, "Failed");
        const active = mine.filter((j) => !finished(j) && !j.metadata.deletionTimestamp);
        let status = { ...cronJob.status };
        const schedule = parseSchedule(String(cronJob.spec?.schedule ?? ""));
        if (schedule && !cronJob.spec?.suspend) {
          const since = Date.parse(status.lastScheduleTime ?? cronJob.metadata.creationTimestamp ?? "") || now;
          const due = lastDue(schedule, since, now);
          const deadline = cronJob.spec?.startingDeadlineSeconds;
          if (due !== undefined && !(typeof deadline === "number" && now - due > deadline * 1000)) {
            const policy = cronJob.spec?.concurrencyPolicy ?? "Allow";
            if (policy === "Forbid" && active.length > 0) {
              // Skipped: tried again at the next schedule.
            } else {
              if (policy === "Replace")
                for (const job of active) {
                  api.remove("Job", job.metadata.namespace, job.metadata.name);
                  api.event(
                    cronJob,
                    "Normal",
                    "SuccessfulDelete",
                    `Deleted job ${job.metadata.name}`,
                    "cronjob-controller",
                  );
                }
              const name = `${cronJob.metadata.name}-${Math.floor(due / 60_000)}`;
              if (!api.get("Job", cronJob.metadata.namespace, name)) {
                const template = cronJob.spec?.jobTemplate ?? {};
                const job = api.create("Job", cronJob.metadata.namespace, {
                  apiVersion: "batch/v1",
                  kind: "Job",
                  metadata: {
                    name,
                    namespace: cronJob.metadata.namespace,
                    labels: { ...(template.metadata?.labels ?? {}) },
                    annotations: {
                      ...(template.metadata?.annotations ?? {}),
                      "batch.kubernetes.io/cronjob-scheduled-timestamp": new Date(due)
                        .toISOString()
                        .replace(".000Z", "Z"),
                    },
                    ownerReferences: [controllerRef(cronJob)],
                  },
                  spec: structuredClone(template.spec ?? {}),
                });
                api.event(
                  cronJob,
                  "Normal",
                  "SuccessfulCreate",
                  `Created job ${job.metadata.name}`,
                  "cronjob-controller",
                );
                active.push(job);
              }
            }
            status = { ...status, lastScheduleTime: timestamp(due) };
          }
          const next = nextDue(schedule, now);
          if (next !== undefined) wake = Math.min(wake ?? next, next);
        }
        // A run seen finished for the first time: the real controller says so, once.
        for (const job of mine) {
          const outcome = conditionOf(job, "Complete") ? "Complete" : conditionOf(job, "Failed") ? "Failed" : undefined;
          if (outcome && !sawCompleted.has(job.metadata.uid)) {
            sawCompleted.add(job.metadata.uid);
            api.event(
              cronJob,
              "Normal",
              "SawCompletedJob",
              `Saw completed job: ${job.metadata.name}, condition: ${outcome}`,
              "cronjob-controller",
            );
          }
        }
        // History: the newest finished Jobs are kept, the others deleted with their pods.
        for (const [outcome, limit] of [
          ["Complete", cronJob.spec?.successfulJobsHistoryLimit ?? 3],
          ["Failed", cronJob.spec?.failedJobsHistoryLimit ?? 1],
        ] as const) {
          const done = mine.filter((j) => conditionOf(j, outcome) && !j.metadata.deletionTimestamp);
          for (const job of done.slice(0, Math.max(0, done.length - limit))) {
            api.remove("Job", job.metadata.namespace, job.metadata.name);
            api.event(cronJob, "Normal", "SuccessfulDelete", `Deleted job ${job.metadata.name}`, "cronjob-controller");
          }
        }
        const succeeded = mine.filter((j) => conditionOf(j, "Complete"));
        const lastSuccess = succeeded.at(-1)?.status?.completionTime;
        const stillActive = active.filter((j) => !finished(j));
        const { active: _active, ...rest } = status;
        api.setStatus(cronJob, {
          ...rest,
          ...(stillActive.length
            ? {
                active: stillActive.map((j) => ({
                  kind: "Job",
                  namespace: j.metadata.namespace,
                  name: j.metadata.name,
                  uid: j.metadata.uid,
                  apiVersion: "batch/v1",
                  resourceVersion: j.metadata.resourceVersion,
                })),
              }
            : {}),
          ...(lastSuccess ? { lastSuccessfulTime: lastSuccess } : {}),
        });
      }
      return wake;
    },
  };
}

// --- internal ---

/** A five-field cron schedule as the sets of minutes, hours, days of month, months and days of week it allows. */
type Schedule = readonly (readonly number[])[];

const RANGES: readonly (readonly [number, number])[] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 6],
];

/** Parses `m h dom mon dow` (`*`, `*\/n`, `a-b`, `a-b/n`, `a,b`, numbers); undefined when it is not one. */
export function parseSchedule(text: string): Schedule | undefined {
  const fields = text.trim().split(/\s+/);
  if (fields.length !== 5) return undefined;
  const out: number[][] = [];
  for (let i = 0; i < 5; i++) {
    const [lo, hi] = RANGES[i]!;
    const allowed = new Set<number>();
    for (const part of fields[i]!.split(",")) {
      const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
      if (!m) return undefined;
      const from = m[1] === "*" ? lo : Number(m[2]);
      const to = m[1] === "*" ? hi : m[3] !== undefined ? Number(m[3]) : m[4] ? hi : from;
      const step = m[4] ? Number(m[4]) : 1;
      if (from < lo || to > hi || step < 1) return undefined;
      for (let v = from; v <= to; v += step) allowed.add(i === 4 && v === 7 ? 0 : v);
    }
    out.push([...allowed].sort((a, b) => a - b));
  }
  return out;
}

function matches(schedule: Schedule, ms: number): boolean {
  const d = new Date(ms);
  const values = [d.getUTCMinutes(), d.getUTCHours(), d.getUTCDate(), d.getUTCMonth() + 1, d.getUTCDay()];
  return values.every((v, i) => schedule[i]!.includes(v));
}

/** The latest scheduled minute after `since` and at or before `now`, epoch ms (at most a day back). */
function lastDue(schedule: Schedule, since: number, now: number): number | undefined {
  const floor = Math.max(Math.floor(since / 60_000) * 60_000 + 60_000, now - 86_400_000);
  for (let t = Math.floor(now / 60_000) * 60_000; t >= floor; t -= 60_000) if (matches(schedule, t)) return t;
  return undefined;
}

/** The next scheduled minute after `now`, epoch ms (within a week). */
function nextDue(schedule: Schedule, now: number): number | undefined {
  for (let t = Math.floor(now / 60_000) * 60_000 + 60_000, n = 0; n < 7 * 1_440; t += 60_000, n++)
    if (matches(schedule, t)) return t;
  return undefined;
}

function scheduledOf(job: KubeObject): number {
  const at = job.metadata.annotations?.["batch.kubernetes.io/cronjob-scheduled-timestamp"];
  return Date.parse(at ?? job.metadata.creationTimestamp ?? "") || 0;
}

function conditionOf(job: KubeObject, type: string): KubeObject | undefined {
  return (job.status?.conditions ?? []).find((c: KubeObject) => c.type === type && c.status === "True");
}
