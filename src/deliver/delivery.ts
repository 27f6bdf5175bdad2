import { type DeadLetter, type DeliveryStore, deadLetterId, type Dispatch, type Outcome } from "../model/dispatch.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { createWaiters } from "../runtime/waiters.ts";
import {
  type AttemptHooks,
  attemptJob,
  type RetrySettings,
  type Sender,
  type Settled,
  type Shortener,
} from "./attempt.ts";
import { RETRY_WINDOW_MS } from "./backoff.ts";
import { createBudgets, type Overflow } from "./budget.ts";
import type { DeliveryFailure, Failure } from "./failure.ts";
import { type FallbackProvider, fallbackFor } from "./fallback.ts";
import { createQueues, MAX_OUTBOX_JOBS } from "./queue.ts";
import { createDeliveryRecords } from "./records.ts";

export type { DeadLetter } from "../model/dispatch.ts";
export type { RetrySettings, Sender, Shortener } from "./attempt.ts";
export { MAX_OUTBOX_JOBS } from "./queue.ts";

/** A configured provider as delivery sees it: its sender and its own delivery settings (spec 2.4). */
export interface DeliveryProvider extends FallbackProvider {
  readonly sender: Sender;
  /** New conversations per hour; 0 or absent → unlimited (spec 6 item 3). */
  readonly hourlyBudget?: number;
  readonly retry?: RetrySettings;
}

/**
 * What delivery reports, stage by stage, for metrics, health and logs (app/delivery/observe.ts maps them); each is
 * optional. Failures carry a bounded `DeliveryFailure` and the provider's words apart.
 */
export interface DeliveryHooks extends AttemptHooks {
  /** A job reached its provider. */
  delivered?(job: Dispatch, outcome: Extract<Outcome, { kind: "ok" }>): void;
  /** The hourly budget folded a job into its provider's overflow digest. */
  folded?(job: Dispatch): void;
  /** A permanent refusal: the message is dead-lettered at this provider. */
  rejected?(job: Dispatch, letter: DeadLetter, failure: Failure): void;
  /** Transient failures until retry.maxAttempts or the 24 h window. */
  gaveUp?(job: Dispatch, settled: Extract<Settled, { kind: "given_up" }>): void;
  /** A job its provider failed for good goes to the provider's fallback (or reached it already: `send` false). */
  handedOver?(job: Dispatch, to: string, send: boolean): void;
  /** A job failed for good with no fallback left (after `rejected` or `gaveUp`). */
  lost?(job: Dispatch, failure: DeliveryFailure): void;
  /** A job dropped before delivery started: outbox full, too old on restore, or its provider removed. */
  pendingDropped?(job: Dispatch, failure: "outbox_full" | "expired" | "provider_removed"): void;
  /** A resolve and its unsent announcement became one combined message. */
  combined?(job: Dispatch): void;
  queueDepth?(provider: string, depth: number): void;
}

/** The delivery stage (deliver/): everything after routing. */
export interface Delivery {
  /** Routed jobs: the hourly budget admits or folds each, the admitted are queued. */
  submit(jobs: readonly Dispatch[], now: number): void;
  /** Queues a job outside the budget (an overflow digest, a fallback's copy). */
  enqueue(job: Dispatch): void;
  /**
   * Queues the overflow digests due at `now` (epoch ms), each as `render` makes it (notify/ renders, route/
   * addresses it), and only then forgets what they fold, in memory and in the store: a kill in between sends a
   * digest twice rather than never. Paging tools and trackers get none (`skipped` names them).
   */
  sendOverflow(
    now: number,
    render: (overflow: Overflow) => Promise<Dispatch>,
  ): Promise<{ sent: number; skipped: string[] }>;
  /** The incidents whose conversation an hourly budget folded, with the providers it folded them at. */
  foldedAt(): ReadonlyMap<string, readonly string[]>;
  /** Epoch ms of the next overflow digest due. */
  nextOverflowAt(): number | undefined;
  /** Jobs waiting or in flight for a provider. */
  depth(provider: string): number;
  /** `createdAt` (epoch ms) of the oldest message waiting or in flight for a provider (outbox age), if any. */
  oldest(provider: string): number | undefined;
  /** Resolves when every queue is empty, or after `timeoutMs` (then returns false). */
  drain(timeoutMs: number): Promise<boolean>;
  /** Dead letters so far, oldest first. */
  deadLetters(): readonly DeadLetter[];
  /**
   * Sends a dead letter's job again (`/deadletters`, docs/delivery.md): removed from the list and queued as new
   * (its 24 h retry window starts at `now`, epoch ms). "missing" when no letter has this id, "no_job" for a
   * letter kept by an older version without its message.
   */
  retryDeadLetter(id: string, now: number): "queued" | "missing" | "no_job";
  /** Removes a dead letter; false when there is none with this id. */
  deleteDeadLetter(id: string): boolean;
  /** The vendor conversation id of an incident at a provider (thread ts), if known. */
  conversation(provider: string, incidentId: string): string | undefined;
  /**
   * Takes up what an earlier process left in the store (spec 6 "resumed by the next leader"): conversation
   * ids, dead letters, and the outbox — jobs younger than 24 h are queued again, older ones dropped
   * (`expired`). Returns the number of jobs queued again.
   */
  restore(): Promise<number>;
  /** Resolves once every job submitted so far is in the outbox (spec 1.9: what was decided survives a kill). */
  persisted(): Promise<void>;
  stop(): void;
}

/**
 * Creates the delivery pipeline (spec 6 items 1-6; Alertmanager's notify pipeline is the model), stages with
 * one input and one output each:
 *   budget (deliver/budget.ts: admit or fold into the overflow digest)
 *   → queue (deliver/queue.ts: priority, supersede, bounded outbox)
 *   → outbox (deliver/records.ts: written before the first attempt, removed once settled)
 *   → retry (deliver/attempt.ts: the only stage that retries)
 *   → settle: conversation ids kept; a permanent refusal dead-lettered; a job failed for good handed to its
 *     provider's fallback (deliver/fallback.ts), which joins the conversation through `onJoin`.
 * One worker per provider. `clean` removes credentials from a provider's answer before it is kept or logged.
 */
export function createDelivery(options: {
  providers: readonly DeliveryProvider[];
  clock: Clock;
  logger: Logger;
  hooks?: DeliveryHooks;
  store?: DeliveryStore;
  maxJobs?: number;
  maxDeadLetters?: number;
  random?: () => number;
  clean?: (text: string) => string;
  /** A fallback joined an incident's conversation: its later messages go there too (route/). */
  onJoin?: (incidentId: string, provider: string) => void;
  /** Whether a provider receives messages in the current edition: a fallback must (Community keeps one). */
  isActive?: (provider: string) => boolean;
  /**
   * The fencing check before every attempt (docs/leadership.md): false once this replica no longer holds the
   * state lock under the term it led with; the job stays in the outbox for the next leader.
   */
  canSend?: () => boolean;
  /** How a message refused for size is shortened and split (notify/shrink.ts); without it such a refusal is final. */
  shortener?: Shortener;
}): Delivery {
  const { clock, logger } = options;
  const hooks = options.hooks ?? {};
  const byName = new Map(options.providers.map((p) => [p.name, p] as const));
  const queues = createQueues(options.maxJobs ?? MAX_OUTBOX_JOBS);
  const records = createDeliveryRecords({
    ...(options.store ? { store: options.store } : {}),
    logger,
    ...(options.maxDeadLetters !== undefined ? { maxDeadLetters: options.maxDeadLetters } : {}),
  });
  const budgets = createBudgets(new Map(options.providers.map((p) => [p.name, p.hourlyBudget ?? 0] as const)));
  const stopper = new AbortController();
  const idle = createWaiters(clock);
  // Which providers each recent message went to, so a fallback never gets a message twice.
  const sentTo = new Map<string, Set<string>>();
  const record = (job: Dispatch) => {
    for (const id of [job.message.id, job.openedResolved?.id]) {
      if (!id) continue;
      let set = sentTo.get(id);
      if (!set) {
        sentTo.set(id, (set = new Set()));
        if (sentTo.size > 10_000) sentTo.delete(sentTo.keys().next().value as string);
      }
      set.add(job.provider);
    }
  };
  const clean = (text: string) => (options.clean ? options.clean(text) : text);
  const report = (provider: string) => hooks.queueDepth?.(provider, queues.depth(provider));

  const handOver = (job: Dispatch, failure: DeliveryFailure) => {
    const found = fallbackFor(job.provider, job.message, byName, (id, p) => sentTo.get(id)?.has(p) ?? false);
    const next = found && (options.isActive?.(found.to) ?? true) ? found : undefined;
    if (!next) {
      hooks.lost?.(job, failure);
      return;
    }
    hooks.handedOver?.(job, next.to, next.send);
    if (!next.send) return;
    options.onJoin?.(job.message.incidentId, next.to);
    enqueue({ ...job, id: `${next.to}:${job.message.id}`, provider: next.to, createdAt: clock.now() });
  };

  const settle = (job: Dispatch, settled: Settled) => {
    const provider = job.provider;
    if (settled.kind === "delivered") {
      const { conversation } = settled.outcome;
      if (conversation && (job.message.action === "announce" || job.message.action === "update")) {
        records.setConversation(provider, job.message.incidentId, conversation);
      }
      hooks.delivered?.(job, settled.outcome);
    } else if (settled.kind === "rejected") {
      // The provider's answer may echo what it was sent: credentials are removed before it is kept or logged.
      const failure = { failure: settled.failure, detail: clean(settled.detail) };
      const letter: DeadLetter = {
        id: job.id,
        provider,
        messageId: job.message.id,
        incidentId: job.message.incidentId,
        action: job.message.action,
        reason: failure.detail,
        at: clock.now(),
        job,
      };
      records.addDeadLetter(letter);
      hooks.rejected?.(job, letter, failure);
      handOver(job, settled.failure);
    } else if (settled.kind === "given_up") {
      hooks.gaveUp?.(job, { ...settled, detail: clean(settled.detail) });
      handOver(job, settled.failure);
    }
    if (job.message.action === "resolve" || job.message.action === "opened_resolved") {
      records.endConversation(provider, job.message.incidentId);
    }
  };

  const run = async (provider: string, sender: Sender, running: Set<string>) => {
    if (running.has(provider)) return;
    running.add(provider);
    try {
      for (let job = queues.next(provider); job && !stopper.signal.aborted; job = queues.next(provider)) {
        if (options.canSend && !options.canSend()) {
          queues.putBack(job);
          break;
        }
        const attempt = { job, superseded: false };
        queues.setFlight(provider, attempt);
        await records.written(job.id);
        const settled = await attemptJob(attempt, {
          sender,
          clock,
          signal: stopper.signal,
          conversation: () => records.conversation(provider, job!.message.incidentId),
          ...(byName.get(provider)?.retry ? { retry: byName.get(provider)!.retry } : {}),
          ...(options.random ? { random: options.random } : {}),
          ...(options.shortener ? { shortener: options.shortener } : {}),
          hooks,
          supersedeFailed: () => {
            const combined = queues.combineFailed(attempt);
            if (!combined) return false;
            records.removeJob(combined.resolve);
            hooks.combined?.(combined.job);
            record(combined.job);
            records.saveJob(combined.job);
            return true;
          },
        });
        queues.setFlight(provider, undefined);
        if (settled.kind === "stopped") {
          // The job stays in the outbox for the next process (counted deferred by the caller).
          queues.putBack(job);
          break;
        }
        records.removeJob(job);
        if (settled.kind !== "superseded") settle(job, settled);
        report(provider);
      }
    } finally {
      running.delete(provider);
      if (queues.idle()) idle.release();
    }
  };
  const running = new Set<string>();

  const saveBudget = (provider: string, now: number) => records.saveBudget(provider, budgets.snapshot(provider, now));

  const enqueue = (job: Dispatch) => {
    const provider = byName.get(job.provider);
    if (!provider) {
      // Counted and logged once, by the pendingDropped hook.
      hooks.pendingDropped?.(job, "provider_removed");
      return;
    }
    const queued = queues.add(job);
    for (const moot of queued.superseded) records.removeJob(moot);
    if (queued.job !== job) hooks.combined?.(queued.job);
    if (queued.evicted) {
      records.removeJob(queued.evicted);
      hooks.pendingDropped?.(queued.evicted, "outbox_full");
      report(queued.evicted.provider);
    }
    record(queued.job);
    records.saveJob(queued.job);
    report(job.provider);
    void run(job.provider, provider.sender, running);
  };

  return {
    submit(jobs, now) {
      for (const job of jobs) {
        if (budgets.admit(job.provider, job.message, now)) enqueue(job);
        else hooks.folded?.(job);
        if (byName.get(job.provider)?.hourlyBudget) saveBudget(job.provider, now);
      }
    },
    enqueue,
    async sendOverflow(now, render) {
      const all = budgets.due(now);
      const pages = (p: string) => byName.get(p)?.kind === "paging" || byName.get(p)?.kind === "tracker";
      let sent = 0;
      for (const o of all) {
        if (!pages(o.provider)) {
          enqueue(await render(o));
          sent++;
        }
        saveBudget(o.provider, now);
      }
      return { sent, skipped: all.filter((o) => pages(o.provider)).map((o) => o.provider) };
    },
    foldedAt: () => budgets.foldedAt(),
    nextOverflowAt: () => budgets.nextDueAt(),
    depth: (provider) => queues.depth(provider),
    oldest: (provider) => queues.oldest(provider),
    persisted: () => records.flushed(),
    async drain(timeoutMs) {
      if (queues.idle()) return true;
      return idle.wait(timeoutMs);
    },
    deadLetters: () => records.deadLetters(),
    retryDeadLetter(id, now) {
      const letter = records.deadLetters().find((l) => deadLetterId(l) === id);
      if (!letter) return "missing";
      if (!letter.job) return "no_job";
      records.takeDeadLetter(id);
      enqueue({ ...letter.job, createdAt: now });
      return "queued";
    },
    deleteDeadLetter: (id) => records.takeDeadLetter(id) !== undefined,
    conversation: (provider, incidentId) => records.conversation(provider, incidentId),
    async restore() {
      let queued = 0;
      const restored = await records.restore();
      const kept = restored.budgets.filter((b) => byName.has(b.provider));
      for (const gone of restored.budgets.filter((b) => !byName.has(b.provider))) {
        const n = Object.values(gone.overflow?.counts ?? {}).reduce((a, b) => a + b, 0);
        if (n > 0) logger.warn(`${gone.provider} is no longer configured: its overflow digest of ${n} is not sent`);
        records.saveBudget(gone.provider, undefined);
      }
      budgets.restore(kept);
      for (const job of restored.jobs) {
        if (clock.now() - job.createdAt > RETRY_WINDOW_MS) {
          records.removeJob(job);
          hooks.pendingDropped?.(job, "expired");
          continue;
        }
        if (!byName.has(job.provider)) {
          records.removeJob(job);
          hooks.pendingDropped?.(job, "provider_removed");
          continue;
        }
        enqueue(job);
        queued++;
      }
      return queued;
    },
    stop() {
      stopper.abort(new DOMException("stopped", "AbortError"));
    },
  };
}
