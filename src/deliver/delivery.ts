import type { Job, Outcome } from "../model/job.ts";
import type { Message } from "../model/message.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { createWaiters } from "../runtime/waiters.ts";
import { backoffMs, RETRY_WINDOW_MS } from "./backoff.ts";

/** The part of a provider delivery uses: send one message, classify the result. */
export interface Sender {
  send(message: Message, context: { conversation?: string; signal: AbortSignal; now: number }): Promise<Outcome>;
}

/** A message a provider refused for good (spec 6 item 1), kept for inspection. */
export interface DeadLetter {
  readonly provider: string;
  readonly messageId: string;
  readonly incidentId: string;
  readonly action: Message["action"];
  readonly reason: string;
  /** Epoch ms. */
  readonly at: number;
}

interface InFlight {
  readonly job: Job;
  /** Set while the job waits out a backoff; aborting it ends the wait. */
  waiting?: AbortController;
  /** Replaced by a combined 'opened and resolved' message before it reached anyone. */
  superseded: boolean;
}

/** A provider's own retry settings (spec 2.4 `retry`): attempts before giving up, and a fixed delay in ms instead of the backoff. */
export interface RetrySettings {
  readonly maxAttempts?: number;
  readonly delayMs?: number;
}

/** What delivery reports to metrics and health; each callback is optional. */
export interface DeliveryHooks {
  attempted?(provider: string): void;
  retried?(provider: string): void;
  delivered?(job: Job): void;
  dropped?(job: Job, reason: string): void;
  deadLettered?(letter: DeadLetter, job: Job): void;
  queueDepth?(provider: string, depth: number): void;
  providerState?(provider: string, state: "ok" | "unavailable" | "rate_limited" | "rejected", detail?: string): void;
}

/** The delivery stage (deliver/). */
export interface Delivery {
  /** Queues a job on its provider's queue and starts the worker. */
  enqueue(job: Job): void;
  /** Jobs waiting or in flight for a provider. */
  depth(provider: string): number;
  /** Resolves when every queue is empty, or after `timeoutMs` (then returns false). */
  drain(timeoutMs: number): Promise<boolean>;
  /** Dead letters so far, oldest first. */
  deadLetters(): readonly DeadLetter[];
  /** The vendor conversation id of an incident at a provider (thread ts), if known. */
  conversation(provider: string, incidentId: string): string | undefined;
  stop(): void;
}

/**
 * Creates the delivery stage: one priority queue and one worker per provider (spec 6 items 1, 2, 6).
 * - Resolves and pages go ahead of routine jobs, but never ahead of an earlier job of the same incident.
 * - A resolve whose announcement is still queued replaces it with one 'opened and resolved' message.
 * - Transient failures and rate limits are retried (Retry-After honoured) for up to 24 h from queueing, or
 *   the provider's `retry.maxAttempts` with its fixed `retry.delay`, then given up (`dropped`); a permanent
 *   rejection is dead-lettered at once. This is the only retry layer; fallbacks are the hooks' caller's.
 * - Conversation ids returned by a provider's announcement are kept for its updates and resolve.
 */
export function createDelivery(options: { senders: ReadonlyMap<string, Sender>; clock: Clock; logger: Logger; hooks?: DeliveryHooks; maxDeadLetters?: number; random?: () => number; retry?: ReadonlyMap<string, RetrySettings> }): Delivery {
  const { clock, logger } = options;
  const hooks = options.hooks ?? {};
  const queues = new Map<string, { jobs: Job[]; inFlight?: InFlight; running: boolean }>();
  const conversations = new Map<string, string>();
  const letters: DeadLetter[] = [];
  const stopper = new AbortController();
  const idle = createWaiters(clock);

  const queueOf = (provider: string) => {
    let q = queues.get(provider);
    if (!q) queues.set(provider, (q = { jobs: [], running: false }));
    return q;
  };
  const depthOf = (provider: string): number => {
    const q = queues.get(provider);
    return q ? q.jobs.length + (q.inFlight ? 1 : 0) : 0;
  };
  const report = (provider: string) => hooks.queueDepth?.(provider, depthOf(provider));
  const notifyIdle = () => {
    if ([...queues.values()].every((q) => q.jobs.length === 0 && !q.inFlight)) idle.release();
  };

  const pickNext = (jobs: Job[]): number => {
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i]!;
      if (job.priority !== "urgent") continue;
      if (!jobs.slice(0, i).some((j) => j.message.incidentId === job.message.incidentId)) return i;
    }
    return 0;
  };

  const finish = (provider: string, job: Job) => {
    const q = queueOf(provider);
    q.inFlight = undefined;
    report(provider);
    if (job.message.action === "resolve" || job.message.action === "opened_resolved") conversations.delete(`${provider}\u0000${job.message.incidentId}`);
  };

  const deliverOne = async (provider: string, sender: Sender, flight: InFlight) => {
    const job = flight.job;
    const key = `${provider}\u0000${job.message.incidentId}`;
    for (let attempt = 1; !stopper.signal.aborted && !flight.superseded; attempt++) {
      hooks.attempted?.(provider);
      let outcome: Outcome;
      try {
        outcome = await sender.send(job.message, { conversation: conversations.get(key), signal: stopper.signal, now: clock.now() });
      } catch (error) {
        outcome = { kind: "retry", reason: `provider_error: ${(error as Error).message}` };
      }
      if (outcome.kind === "ok") {
        if (outcome.conversation && (job.message.action === "announce" || job.message.action === "update")) conversations.set(key, outcome.conversation);
        hooks.providerState?.(provider, "ok");
        hooks.delivered?.(job);
        return;
      }
      if (outcome.kind === "permanent") {
        const letter: DeadLetter = { provider, messageId: job.message.id, incidentId: job.message.incidentId, action: job.message.action, reason: outcome.reason, at: clock.now() };
        letters.push(letter);
        if (letters.length > (options.maxDeadLetters ?? 1000)) letters.shift();
        logger.error(`delivery to ${provider} rejected permanently (${outcome.reason}); message ${job.message.id} dead-lettered, not retried`);
        hooks.providerState?.(provider, "rejected", outcome.reason);
        hooks.deadLettered?.(letter, job);
        return;
      }
      const settings = options.retry?.get(provider);
      // Retry-After always wins; a configured fixed delay replaces the backoff otherwise.
      const wait = outcome.afterMs === undefined && settings?.delayMs !== undefined ? settings.delayMs : backoffMs(outcome.kind, attempt, outcome.afterMs, options.random);
      const why = outcome.kind === "rateLimited" ? "rate limited" : outcome.reason;
      if (clock.now() + wait - job.createdAt > RETRY_WINDOW_MS || (settings?.maxAttempts !== undefined && attempt >= settings.maxAttempts)) {
        logger.error(`delivery to ${provider} gave up after ${attempt} attempt${attempt === 1 ? "" : "s"}${settings?.maxAttempts !== undefined && attempt >= settings.maxAttempts ? " (retry.maxAttempts)" : " over 24 h"} (${why}); message ${job.message.id} not delivered there`);
        hooks.dropped?.(job, why);
        return;
      }
      hooks.providerState?.(provider, outcome.kind === "rateLimited" ? "rate_limited" : "unavailable", why);
      if (attempt === 1 || attempt % 10 === 0) logger.warn(`delivery to ${provider} failed (${why}); retry ${attempt} in ${Math.round(wait / 1000)} s`);
      hooks.retried?.(provider);
      flight.waiting = new AbortController();
      try {
        await clock.sleep(wait, AbortSignal.any([stopper.signal, flight.waiting.signal]));
      } catch {
        return;
      } finally {
        flight.waiting = undefined;
      }
    }
  };

  const run = async (provider: string) => {
    const q = queueOf(provider);
    const sender = options.senders.get(provider);
    if (q.running) return;
    q.running = true;
    try {
      while (q.jobs.length > 0 && !stopper.signal.aborted) {
        const job = q.jobs.splice(pickNext(q.jobs), 1)[0]!;
        const flight: InFlight = { job, superseded: false };
        q.inFlight = flight;
        if (!sender) {
          logger.error(`delivery: no provider named ${provider}; message ${job.message.id} dropped`);
          hooks.dropped?.(job, "unknown_provider");
        } else await deliverOne(provider, sender, flight);
        if (flight.superseded) {
          q.inFlight = undefined;
          report(provider);
        } else finish(provider, job);
      }
    } finally {
      q.running = false;
      notifyIdle();
    }
  };

  return {
    enqueue(job) {
      const q = queueOf(job.provider);
      let queued = job;
      if (job.message.action === "resolve") {
        const incident = job.message.incidentId;
        let unannounced = q.jobs.some((j) => j.message.incidentId === incident && j.message.action === "announce");
        // An announcement waiting out a retry has not reached anyone yet: it is merged too.
        const flight = q.inFlight;
        if (flight && flight.job.message.incidentId === incident && flight.job.message.action === "announce" && flight.waiting) {
          flight.superseded = true;
          flight.waiting.abort();
          unannounced = true;
        }
        // Updates still waiting are superseded by the resolve, which states the final outcome.
        q.jobs = q.jobs.filter((j) => j.message.incidentId !== incident);
        if (unannounced && job.openedResolved) {
          queued = { ...job, id: `${job.provider}:${job.openedResolved.id}`, message: job.openedResolved };
          logger.debug(`delivery to ${job.provider}: ${incident} resolved before its announcement went out; sending one combined message`);
        }
      }
      q.jobs.push(queued);
      report(job.provider);
      void run(job.provider);
    },
    depth: depthOf,
    async drain(timeoutMs) {
      if ([...queues.values()].every((q) => q.jobs.length === 0 && !q.inFlight)) return true;
      return idle.wait(timeoutMs);
    },
    deadLetters: () => [...letters],
    conversation: (provider, incidentId) => conversations.get(`${provider}\u0000${incidentId}`),
    stop() {
      stopper.abort(new DOMException("stopped", "AbortError"));
    },
  };
}
