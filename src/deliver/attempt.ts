import type { Dispatch, Outcome } from "../model/dispatch.ts";
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

/**
 * How a message refused for size is told anyway (notify/shrink.ts, given by app/): `shrink` to level 1, 2, …
 * (undefined past the last), then `split` by the incidents it covers (undefined when it cannot be).
 */
export interface Shortener {
  shrink(message: Message, level: number): Message | undefined;
  split(message: Message): readonly Message[] | undefined;
}

/** A job being attempted. `wait` is set while it waits out a backoff (it has reached nobody yet). */
export interface Attempt {
  readonly job: Dispatch;
  wait?: AbortController;
  /** Replaced by a combined 'opened and resolved' message before it reached anyone. */
  superseded: boolean;
}

/** Marks an attempt replaced and ends its wait between attempts. */
export function supersede(attempt: Attempt): void {
  attempt.superseded = true;
  attempt.wait?.abort();
}

/** What the retry stage reports, for metrics, health and logs (app/delivery/observe.ts). */
export interface AttemptHooks {
  attempted?(job: Dispatch): void;
  /** A transient failure; the job is tried again after `waitMs`. */
  retried?(job: Dispatch, failure: Failure, attempt: number, waitMs: number): void;
  /** Refused for size: sent again at once, shortened to `level` (notify/shrink.ts), or split (`level` 0). */
  shortened?(job: Dispatch, level: number, detail: string): void;
}

/**
 * The retry stage (spec 6 items 1, 2; the only stage that retries, STYLE.md): sends the attempt's job through
 * `sender` until it settles. A refusal for size (`too_large`) is not final while the message can still be
 * told: it is sent again at once, shorter, and in the end split by the incidents it covers (issue 30). Transient failures and rate limits wait (Retry-After honoured; otherwise the
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
    /** Without one, a refusal for size is final like any other. */
    shortener?: Shortener;
    /**
     * Asked when an attempt failed and will be retried, before anything of the job reached anyone: true when
     * the job was superseded instead (a resolve waiting behind an announcement makes both one combined
     * message), so it is not retried.
     */
    supersedeFailed?: () => boolean;
  },
): Promise<Settled> {
  const { job } = attempt;
  const { clock, signal, retry } = options;
  // What is still to send: the message, or its parts once it had to be split. Each part is shortened from its
  // own full form, one level per refusal for size (notify/shrink.ts); the job is delivered when every part is.
  const parts: { base: Message; message: Message; level: number }[] = [
    { base: job.message, message: job.message, level: 0 },
  ];
  let delivered: Extract<Outcome, { kind: "ok" }> | undefined;
  for (let n = 1; !signal.aborted && !attempt.superseded; ) {
    const part = parts[0];
    if (!part) return { kind: "delivered", outcome: delivered ?? { kind: "ok" } };
    options.hooks?.attempted?.(job);
    let outcome: Outcome;
    try {
      outcome = await options.sender.send(part.message, {
        conversation: options.conversation() ?? delivered?.conversation,
        signal,
        now: clock.now(),
      });
    } catch (error) {
      outcome = { kind: "retry", reason: `provider_error: ${(error as Error).message}` };
    }
    if (outcome.kind === "ok") {
      delivered ??= outcome;
      parts.shift();
      continue;
    }
    // Cut short by mon's own stop: no answer of the provider's, so neither a failure nor a retry to report.
    if (signal.aborted) break;
    const failed = failureOf(outcome);
    if (failed.failure === "too_large") {
      // Never dead-letter what can still be told: shorter, then in parts, each naming what it covers.
      const shorter = options.shortener?.shrink(part.base, part.level + 1);
      if (shorter) {
        parts[0] = { ...part, message: shorter, level: part.level + 1 };
        options.hooks?.shortened?.(job, part.level + 1, failed.detail);
        continue;
      }
      const halves = options.shortener?.split(part.base);
      if (halves) {
        parts.splice(0, 1, ...halves.map((h) => ({ base: h, message: h, level: 0 })));
        options.hooks?.shortened?.(job, 0, `${failed.detail}; split in two`);
        continue;
      }
      return { kind: "rejected", ...failed };
    }
    if (outcome.kind === "permanent") return { kind: "rejected", ...failed };
    // It reached no one: an incident that resolved meanwhile is told once, combined, rather than retried.
    if (!delivered && options.supersedeFailed?.()) return { kind: "superseded" };
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
    n++;
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
