import type { DeadLetter, DeliveryStore, Job, Outcome } from "../model/job.ts";

export type { DeadLetter } from "../model/job.ts";
import type { Message } from "../model/message.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { createWaiters } from "../runtime/waiters.ts";
import { backoffMs, RETRY_WINDOW_MS } from "./backoff.ts";

/** The part of a provider delivery uses: send one message, classify the result. */
export interface Sender {
  send(message: Message, context: { conversation?: string; signal: AbortSignal; now: number }): Promise<Outcome>;
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
  delivered?(job: Job, outcome?: Outcome): void;
  dropped?(job: Job, reason: string): void;
  deadLettered?(letter: DeadLetter, job: Job): void;
  queueDepth?(provider: string, depth: number): void;
  /** The outbox was full (2048 jobs): `job` was dropped before delivery started to make room. */
  saturated?(job: Job): void;
  /** A job from an earlier process was too old to send (over 24 h) and was dropped. */
  expired?(job: Job): void;
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
  /**
   * Takes up what an earlier process left in the store (spec 6 "resumed by the next leader"): conversation
   * ids, dead letters, and the outbox — jobs younger than 24 h are queued again, older ones dropped
   * (`expired`). Returns the number of jobs queued again.
   */
  restore(): Promise<number>;
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
 * - With a `store`, every job is written to the outbox before its first attempt and removed once it is
 *   delivered, dropped or dead-lettered; conversation ids and dead letters are written too, so `restore`
 *   in the next process takes up where this one stopped. At most 2048 jobs wait: beyond that the oldest
 *   routine job (else the oldest) is dropped before delivery started (`saturated`).
 */
/** Most jobs waiting across every provider (spec 8 outbox limit). */
export const MAX_OUTBOX_JOBS = 2048;

export function createDelivery(options: {
  senders: ReadonlyMap<string, Sender>;
  clock: Clock;
  logger: Logger;
  hooks?: DeliveryHooks;
  maxDeadLetters?: number;
  random?: () => number;
  retry?: ReadonlyMap<string, RetrySettings>;
  store?: DeliveryStore;
  maxJobs?: number;
  clean?: (text: string) => string;
}): Delivery {
  const { clock, logger } = options;
  const hooks = options.hooks ?? {};
  const queues = new Map<string, { jobs: Job[]; inFlight?: InFlight; running: boolean }>();
  const conversations = new Map<string, string>();
  const letters: DeadLetter[] = [];
  const stopper = new AbortController();
  const idle = createWaiters(clock);
  const store = options.store;
  // The outbox write of each job, awaited before its first attempt (spec 6: written before the first send).
  const saved = new Map<string, Promise<void>>();
  const persist = (label: string, work: () => Promise<void>) =>
    work().catch((error: unknown) =>
      logger.warn(`state store: ${label} failed (${(error as Error).message}); delivery goes on from memory`),
    );
  const forget = (job: Job) => {
    saved.delete(job.id);
    if (store) void persist(`removing ${job.id} from the outbox`, () => store.removeJob(job.id));
  };

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
    forget(job);
    if (job.message.action === "resolve" || job.message.action === "opened_resolved") {
      conversations.delete(`${provider}\u0000${job.message.incidentId}`);
      if (store)
        void persist("removing a conversation", () => store.removeConversation(provider, job.message.incidentId));
    }
  };

  /** Attempts one job until it is settled (`done`) or the stage stops first (`stopped`: it stays in the outbox). */
  const deliverOne = async (provider: string, sender: Sender, flight: InFlight): Promise<"done" | "stopped"> => {
    const job = flight.job;
    const key = `${provider}\u0000${job.message.incidentId}`;
    await saved.get(job.id);
    for (let attempt = 1; !stopper.signal.aborted && !flight.superseded; attempt++) {
      hooks.attempted?.(provider);
      let outcome: Outcome;
      try {
        outcome = await sender.send(job.message, {
          conversation: conversations.get(key),
          signal: stopper.signal,
          now: clock.now(),
        });
      } catch (error) {
        outcome = { kind: "retry", reason: `provider_error: ${(error as Error).message}` };
      }
      if (outcome.kind === "ok") {
        if (
          outcome.conversation &&
          (job.message.action === "announce" || job.message.action === "update") &&
          conversations.get(key) !== outcome.conversation
        ) {
          conversations.set(key, outcome.conversation);
          const conversation = outcome.conversation;
          if (store)
            void persist("saving a conversation id", () =>
              store.saveConversation(provider, job.message.incidentId, conversation),
            );
        }
        hooks.providerState?.(provider, "ok");
        hooks.delivered?.(job, outcome);
        return "done";
      }
      if (outcome.kind === "permanent") {
        // The provider's answer may echo what it was sent: credentials are removed before it is kept or logged.
        const reason = options.clean ? options.clean(outcome.reason) : outcome.reason;
        const letter: DeadLetter = {
          provider,
          messageId: job.message.id,
          incidentId: job.message.incidentId,
          action: job.message.action,
          reason,
          at: clock.now(),
        };
        letters.push(letter);
        if (letters.length > (options.maxDeadLetters ?? 1000)) letters.shift();
        if (store) void persist("saving a dead letter", () => store.saveDeadLetter(letter));
        logger.error(
          `delivery to ${provider} rejected permanently (${reason}); message ${job.message.id} dead-lettered, not retried`,
        );
        hooks.providerState?.(provider, "rejected", reason);
        hooks.deadLettered?.(letter, job);
        return "done";
      }
      const settings = options.retry?.get(provider);
      // Retry-After always wins; a configured fixed delay replaces the backoff otherwise.
      const wait =
        outcome.afterMs === undefined && settings?.delayMs !== undefined
          ? settings.delayMs
          : backoffMs(outcome.kind, attempt, outcome.afterMs, options.random);
      const why = outcome.kind === "rateLimited" ? "rate limited" : outcome.reason;
      if (
        clock.now() + wait - job.createdAt > RETRY_WINDOW_MS ||
        (settings?.maxAttempts !== undefined && attempt >= settings.maxAttempts)
      ) {
        logger.error(
          `delivery to ${provider} gave up after ${attempt} attempt${attempt === 1 ? "" : "s"}${settings?.maxAttempts !== undefined && attempt >= settings.maxAttempts ? " (retry.maxAttempts)" : " over 24 h"} (${why}); message ${job.message.id} not delivered there`,
        );
        hooks.dropped?.(job, why);
        return "done";
      }
      hooks.providerState?.(provider, outcome.kind === "rateLimited" ? "rate_limited" : "unavailable", why);
      if (attempt === 1 || attempt % 10 === 0)
        logger.warn(`delivery to ${provider} failed (${why}); retry ${attempt} in ${Math.round(wait / 1000)} s`);
      hooks.retried?.(provider);
      flight.waiting = new AbortController();
      try {
        await clock.sleep(wait, AbortSignal.any([stopper.signal, flight.waiting.signal]));
      } catch {
        return stopper.signal.aborted ? "stopped" : "done";
      } finally {
        flight.waiting = undefined;
      }
    }
    return stopper.signal.aborted && !flight.superseded ? "stopped" : "done";
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
        } else if ((await deliverOne(provider, sender, flight)) === "stopped") {
          // Stopped mid-retry: the job stays in the outbox for the next process (counted deferred by the caller).
          q.jobs.unshift(job);
          q.inFlight = undefined;
          break;
        }
        if (flight.superseded) {
          q.inFlight = undefined;
          forget(job);
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
        if (
          flight &&
          flight.job.message.incidentId === incident &&
          flight.job.message.action === "announce" &&
          flight.waiting
        ) {
          flight.superseded = true;
          flight.waiting.abort();
          unannounced = true;
        }
        // Updates still waiting are superseded by the resolve, which states the final outcome.
        for (const j of q.jobs) if (j.message.incidentId === incident) forget(j);
        q.jobs = q.jobs.filter((j) => j.message.incidentId !== incident);
        if (unannounced && job.openedResolved) {
          queued = { ...job, id: `${job.provider}:${job.openedResolved.id}`, message: job.openedResolved };
          logger.debug(
            `delivery to ${job.provider}: ${incident} resolved before its announcement went out; sending one combined message`,
          );
        }
      }
      // The outbox is bounded: the oldest routine job (else the oldest) makes room, counted and logged.
      const limit = options.maxJobs ?? MAX_OUTBOX_JOBS;
      if ([...queues.values()].reduce((n, x) => n + x.jobs.length, 0) >= limit) {
        const all = [...queues.values()].flatMap((x) => x.jobs);
        const victim =
          all.filter((j) => j.priority === "routine").sort((a, b) => a.createdAt - b.createdAt)[0] ??
          all.sort((a, b) => a.createdAt - b.createdAt)[0];
        if (victim) {
          const vq = queueOf(victim.provider);
          vq.jobs = vq.jobs.filter((j) => j !== victim);
          forget(victim);
          logger.error(
            `delivery: outbox full (${limit} jobs); message ${victim.message.id} for ${victim.provider} dropped before delivery`,
          );
          hooks.saturated?.(victim);
          report(victim.provider);
        }
      }
      q.jobs.push(queued);
      if (store)
        saved.set(
          queued.id,
          persist(`writing ${queued.id} to the outbox`, () => store.saveJob(queued)),
        );
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
    async restore() {
      if (!store) return 0;
      for (const c of await store.loadConversations())
        conversations.set(`${c.provider}\u0000${c.incidentId}`, c.conversation);
      for (const letter of await store.loadDeadLetters()) letters.push(letter);
      let queued = 0;
      for (const job of await store.loadJobs()) {
        if (clock.now() - job.createdAt > RETRY_WINDOW_MS) {
          logger.error(
            `delivery: message ${job.message.id} for ${job.provider} waited over 24 h in the outbox; dropped`,
          );
          hooks.expired?.(job);
          void persist(`removing ${job.id} from the outbox`, () => store.removeJob(job.id));
          continue;
        }
        if (!options.senders.has(job.provider)) {
          logger.warn(
            `delivery: message ${job.message.id} was queued for ${job.provider}, which no longer receives messages; dropped`,
          );
          hooks.dropped?.(job, "provider_removed");
          void persist(`removing ${job.id} from the outbox`, () => store.removeJob(job.id));
          continue;
        }
        this.enqueue(job);
        queued++;
      }
      return queued;
    },
    stop() {
      stopper.abort(new DOMException("stopped", "AbortError"));
    },
  };
}
