import type { Dispatch } from "../model/dispatch.ts";
import { type Attempt, supersede } from "./attempt.ts";

/** Most jobs waiting across every provider (spec 8 outbox limit). */
export const MAX_OUTBOX_JOBS = 2048;

/** What adding a job did besides queueing it. */
export interface Queued {
  /** The job as queued: a resolve whose announcement never went out becomes the combined message. */
  readonly job: Dispatch;
  /** Jobs taken out unsent: updates a resolve made moot, and the announcement it replaced. */
  readonly superseded: readonly Dispatch[];
  /** The job dropped to make room in a full outbox, if any. */
  readonly evicted?: Dispatch;
}

/** The per-provider priority queues (spec 6 items 6, 8): jobs waiting and the attempt in flight. */
export interface Queues {
  /** Queues `job`; see Queued. */
  add(job: Dispatch): Queued;
  /** Takes the next job of `provider` (resolves and pages first, never ahead of their own incident). */
  next(provider: string): Dispatch | undefined;
  /** Puts a job back at the head of its queue (the stage stopped while it was in flight). */
  putBack(job: Dispatch): void;
  /** Records the attempt in flight at `provider` (undefined once it settled). */
  setFlight(provider: string, attempt: Attempt | undefined): void;
  /** Jobs waiting or in flight at a provider. */
  depth(provider: string): number;
  /** `createdAt` (epoch ms) of the oldest job waiting or in flight for a provider, undefined when none. */
  oldest(provider: string): number | undefined;
  /**
   * The attempt in flight failed before it reached anyone: when it is an announcement and its incident's
   * resolve already waits behind it, the resolve becomes the combined "opened and resolved" message in place
   * and the attempt is superseded. Returns the resolve replaced and the combined job, or undefined.
   */
  combineFailed(attempt: Attempt): { resolve: Dispatch; job: Dispatch } | undefined;
  /** True when nothing waits or is in flight anywhere. */
  idle(): boolean;
  providers(): string[];
}

/**
 * Creates the queues. A resolve supersedes the updates of its incident still waiting, and when the
 * announcement itself has not reached anyone (waiting in the queue or between attempts) both become one
 * 'opened and resolved' message (spec 3.1). At most `maxJobs` wait: beyond that the oldest routine job
 * (else the oldest) is evicted.
 */
export function createQueues(maxJobs = MAX_OUTBOX_JOBS): Queues {
  const queues = new Map<string, { jobs: Dispatch[]; flight?: Attempt }>();
  const queueOf = (provider: string) => {
    let q = queues.get(provider);
    if (!q) queues.set(provider, (q = { jobs: [] }));
    return q;
  };
  const waiting = () => [...queues.values()].reduce((n, q) => n + q.jobs.length, 0);

  return {
    add(job) {
      const q = queueOf(job.provider);
      let queued = job;
      const superseded: Dispatch[] = [];
      if (job.message.action === "resolve") {
        const incident = job.message.incidentId;
        let unannounced = q.jobs.some((j) => j.message.incidentId === incident && j.message.action === "announce");
        // An announcement waiting out a retry has not reached anyone yet: it is merged too.
        const flight = q.flight;
        if (flight?.wait && flight.job.message.incidentId === incident && flight.job.message.action === "announce") {
          supersede(flight);
          unannounced = true;
        }
        // Updates still waiting are superseded by the resolve, which states the final outcome.
        superseded.push(...q.jobs.filter((j) => j.message.incidentId === incident));
        q.jobs = q.jobs.filter((j) => j.message.incidentId !== incident);
        if (unannounced) queued = combinedOf(job) ?? job;
      }
      let evicted: Dispatch | undefined;
      if (waiting() >= maxJobs) {
        const all = [...queues.values()].flatMap((x) => x.jobs);
        const oldest = (jobs: Dispatch[]) => [...jobs].sort((a, b) => a.createdAt - b.createdAt)[0];
        evicted = oldest(all.filter((j) => j.priority === "routine")) ?? oldest(all);
        if (evicted) {
          const vq = queueOf(evicted.provider);
          vq.jobs = vq.jobs.filter((j) => j !== evicted);
        }
      }
      q.jobs.push(queued);
      return { job: queued, superseded, ...(evicted ? { evicted } : {}) };
    },
    next(provider) {
      const q = queueOf(provider);
      if (q.jobs.length === 0) return undefined;
      return q.jobs.splice(pickNext(q.jobs), 1)[0];
    },
    putBack(job) {
      queueOf(job.provider).jobs.unshift(job);
    },
    setFlight(provider, attempt) {
      queueOf(provider).flight = attempt;
    },
    depth(provider) {
      const q = queues.get(provider);
      return q ? q.jobs.length + (q.flight ? 1 : 0) : 0;
    },
    oldest(provider) {
      const q = queues.get(provider);
      const times = [...(q?.jobs ?? []), ...(q?.flight ? [q.flight.job] : [])].map((j) => j.createdAt);
      return times.length ? Math.min(...times) : undefined;
    },
    combineFailed(attempt) {
      const announced = attempt.job;
      if (announced.message.action !== "announce") return undefined;
      const q = queueOf(announced.provider);
      const at = q.jobs.findIndex(
        (j) => j.message.incidentId === announced.message.incidentId && j.message.action === "resolve",
      );
      const resolve = q.jobs[at];
      const job = resolve && combinedOf(resolve);
      if (!resolve || !job) return undefined;
      q.jobs[at] = job;
      supersede(attempt);
      return { resolve, job };
    },
    idle: () => [...queues.values()].every((q) => q.jobs.length === 0 && !q.flight),
    providers: () => [...queues.keys()],
  };
}

// --- internal ---

/** A resolve as the one combined "opened and resolved" message it carries, or undefined when it carries none. */
function combinedOf(resolve: Dispatch): Dispatch | undefined {
  const m = resolve.openedResolved;
  return m && { ...resolve, id: `${resolve.provider}:${m.id}`, message: m };
}

/** Index of the next job: the first urgent one with no earlier job of its incident, else the first. */
function pickNext(jobs: readonly Dispatch[]): number {
  for (let i = 0; i < jobs.length; i++) {
    const job = jobs[i]!;
    if (job.priority !== "urgent") continue;
    if (!jobs.slice(0, i).some((j) => j.message.incidentId === job.message.incidentId)) return i;
  }
  return 0;
}
