import type { Job, Outcome } from "../model/job.ts";
import type { Message } from "../model/message.ts";
import type { Clock } from "../runtime/clock.ts";
import { backoffMs, MIN_BACKOFF_MS, RETRY_WINDOW_MS } from "./backoff.ts";
import { type Failure, failureOf } from "./failure.ts";

/** The part of a provider delivery uses: send one message, classify the result (STYLE.md convention 3). */
export interface Sender {
  send(message: Message, context: { conversation?: string; signal: AbortSignal; now: number }): Promise<Outcome>;
}

/** A provider's own retry settings (spec 2.4 `retry`): attempts before giving up, and a fixed delay in ms instead of the backoff. */
export interface RetrySettings {
  readonly maxAttempts?: number;
  readonly delayMs?: number;
}

/**
 * How one job ended at its provider: `delivered` (with the provider's ok outcome), `rejected` (a permanent
 * refusal: dead-lettered), `given_up` (transient failures until retry.maxAttempts or the 24 h window),
 * `superseded` (replaced by a combined message while it waited), `stopped` (the stage stopped: the job stays
 * in the outbox for the next process).
 */
export type Settled =
  | { readonly kind: "delivered"; readonly outcome: Extract<Outcome, { kind: "ok" }> }
  | ({ readonly kind: "rejected" } & Failure)
  | ({ readonly kind: "given_up"; readonly attempts: number; readonly last: Failure } & Failure)
  | { readonly kind: "superseded" }
  | { readonly kind: "stopped" };

/** A job being attempted. `wait` is set while it waits out a backoff (it has reached nobody yet). */
export interface Attempt {
  readonly job: Job;
  wait?: AbortController;
  /** Replaced by a combined 'opened and resolved' message before it reached anyone. */
  superseded: boolean;
}

/** Marks an attempt replaced and ends its wait between attempts. */
export function supersede(attempt: Attempt): void {
  attempt.superseded = true;
  attempt.wait?.abort();
}

/** What the retry stage reports, for metrics, health and logs (app/observe.ts). */
export interface AttemptHooks {
  attempted?(job: Job): void;
  /** A transient failure; the job is tried again after `waitMs`. */
  retried?(job: Job, failure: Failure, attempt: number, waitMs: number): void;
}

/**
 * The retry stage (spec 6 items 1, 2; the only stage that retries, STYLE.md): sends the attempt's job through
 * `sender` until it settles. Transient failures and rate limits wait (Retry-After honoured; otherwise the
 * provider's fixed `retry.delay`, else the backoff) and try again, for up to 24 h from queueing or
 * `retry.maxAttempts` attempts; a permanent refusal settles at once. `conversation` is read before every attempt.
 */
export async function attemptJob(
  attempt: Attempt,
  options: {
    sender: Sender;
    clock: Clock;
    signal: AbortSignal;
    conversation: () => string | undefined;
    retry?: RetrySettings;
    random?: () => number;
    hooks?: AttemptHooks;
  },
): Promise<Settled> {
  const { job } = attempt;
  const { clock, signal, retry } = options;
  for (let n = 1; !signal.aborted && !attempt.superseded; n++) {
    options.hooks?.attempted?.(job);
    let outcome: Outcome;
    try {
      outcome = await options.sender.send(job.message, {
        conversation: options.conversation(),
        signal,
        now: clock.now(),
      });
    } catch (error) {
      outcome = { kind: "retry", reason: `provider_error: ${(error as Error).message}` };
    }
    if (outcome.kind === "ok") return { kind: "delivered", outcome };
    const failed = failureOf(outcome);
    if (outcome.kind === "permanent") return { kind: "rejected", ...failed };
    // Retry-After always wins; a configured fixed delay replaces the backoff otherwise.
    const waitMs = Math.max(
      MIN_BACKOFF_MS,
      outcome.afterMs === undefined && retry?.delayMs !== undefined
        ? retry.delayMs
        : backoffMs(outcome.kind, n, outcome.afterMs, options.random),
    );
    if (retry?.maxAttempts !== undefined && n >= retry.maxAttempts) {
      return { kind: "given_up", failure: "retries_exhausted", detail: failed.detail, attempts: n, last: failed };
    }
    if (clock.now() + waitMs - job.createdAt > RETRY_WINDOW_MS) {
      return { kind: "given_up", failure: "retry_window", detail: failed.detail, attempts: n, last: failed };
    }
    options.hooks?.retried?.(job, failed, n, waitMs);
    attempt.wait = new AbortController();
    try {
      await clock.sleep(waitMs, AbortSignal.any([signal, attempt.wait.signal]));
    } catch {
      break;
    } finally {
      attempt.wait = undefined;
    }
  }
  return attempt.superseded ? { kind: "superseded" } : { kind: "stopped" };
}
