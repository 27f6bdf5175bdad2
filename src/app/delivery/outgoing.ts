import type { Delivery } from "../../deliver/delivery.ts";
import type { Metrics } from "../../metrics.ts";
import type { Dispatch } from "../../model/dispatch.ts";
import type { Message } from "../../model/message.ts";
import { scrubMessage } from "../../notify/scrub.ts";
import { renderOverflowDigest } from "../../notify/summary.ts";
import type { Router } from "../../route/router.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { TellHistory } from "../../page/history.ts";

/** Messages on their way out: scrubbed, routed, handed to delivery, in the order they were decided. */
export interface Outgoing {
  /** One pass's messages, then the overflow digests due at `now`. */
  send(messages: readonly { message: Message; openedResolved?: Message }[], now: number): void;
  /** A plain notice (the startup message), scrubbed like every message. */
  notice(message: Message, now: number): void;
  /** Resolves when everything handed in so far has reached delivery. */
  settled(): Promise<void>;
}

/**
 * The chain after the pure core: every message is scrubbed of credentials (notify/scrub.ts) before any
 * provider sees it, routed (route/), and submitted to delivery (deliver/: budget, queue, retry). Overflow
 * digests due are rendered and queued for their provider; paging tools and trackers skip them (counted).
 * A failure in the chain is contained and counted (`mon_panics_recovered_total{stage="announce"}`).
 */
export function createOutgoing(options: {
  router: Router;
  delivery: Delivery;
  metrics: Metrics;
  logger: Logger;
  cluster: string;
  /** Rewrites a job before delivery (the `templates` of plain-text providers, Pro); identity by default. */
  templated?: (job: Dispatch) => Dispatch;
  /** Remembers what went out, as it went out, for the incidents page (issue 44). */
  history?: Pick<TellHistory, "sent">;
}): Outgoing {
  const { router, delivery, metrics, logger } = options;
  let chain: Promise<void> = Promise.resolve();
  const then = (work: () => Promise<void>) => {
    chain = chain.then(work).catch((error: unknown) => {
      metrics.panicsRecovered.inc({ stage: "announce" });
      logger.error(`routing failed: ${(error as Error).message}`);
    });
  };

  return {
    send(messages, now) {
      then(async () => {
        for (const { message, openedResolved } of messages) {
          const clean = await scrubMessage(message);
          const combined = openedResolved ? await scrubMessage(openedResolved) : undefined;
          metrics.redactedValues.inc(clean.count + (combined?.count ?? 0));
          const what =
            message.delivery === "startup summary"
              ? `startup summary of ${message.covers?.length ?? 0}`
              : message.action;
          logger.info(`${what} ${message.incidentId} (${message.tier}${message.mode === "page" ? ", paging" : ""})`);
          const jobs = router.route(clean.message, now, combined?.message);
          options.history?.sent(clean.message, jobs, now);
          delivery.submit(options.templated ? jobs.map(options.templated) : jobs, now);
        }
        const overflow = await delivery.sendOverflow(now, async (o) => {
          const clean = await scrubMessage(renderOverflowDigest(o, now, options.cluster));
          return router.direct(o.provider, clean.message, now);
        });
        for (const provider of overflow.skipped) metrics.deliveryDigestSkipped.inc({ provider });
      });
    },
    notice(message, now) {
      then(async () => {
        const clean = await scrubMessage(message);
        // Plain notices are not new conversations: the hourly budget does not count them.
        const jobs = router.route(clean.message, now);
        options.history?.sent(clean.message, jobs, now);
        for (const job of jobs) delivery.enqueue(job);
      });
    },
    settled: () => chain,
  };
}
