import type { Config } from "../../config/schema.ts";
import type { DeliveryHooks } from "../../deliver/delivery.ts";
import type { Dispatch } from "../../model/dispatch.ts";
import type { HealthRegistry } from "../../health/registry.ts";
import { KNOWN_KINDS, kindKey } from "../../kube/kinds.ts";
import { isUnexplained } from "../../incident/unexplained.ts";
import { initDeliverySeries, type Metrics } from "../../metrics.ts";
import type { Router } from "../../route/router.ts";
import type { Edition } from "../../model/edition.ts";
import type { Logger } from "../../runtime/logger.ts";
import { redact } from "../../redact/redact.ts";
import type { PassResult } from "../pass/pipeline.ts";
import { Traces } from "./traces.ts";
import { TellHistory } from "../../page/history.ts";

/**
 * The one place where what the stages report becomes metrics, health and log lines (spec 4.2, 7.3): the
 * delivery pipeline's hooks, a pass's result, the state store's events. Stages know none of the three.
 */
export interface Observers {
  readonly delivery: DeliveryHooks;
  /** The edition changed (the license decided): who receives messages now, in health, metrics and the log. */
  editionChanged(): void;
  /** Counts and logs one pass (decisions, panics, failed detectors, unexplained events, redactions). */
  pass(result: PassResult): void;
  /** What mon did with each object (`mon explain`): the passes' traces and the providers' answers. */
  readonly traces: Traces;
  /** The incidents as their messages told them, for the incidents page (issue 44). */
  readonly history: TellHistory;
  /** Why mon does not watch `kind` (its coverage reason, spec 2.6), undefined when it does. */
  unwatched(kind: string): string | undefined;
  /** Audit entries lost (Pro): counted, logged for the first loss and then once per thousand. */
  auditDropped(count: number, why: "queue_full" | "write_failed", output: string, error?: Error): void;
  /** Jobs still queued at shutdown, per provider (they stay in the outbox for the next process). */
  deferred(left: readonly (readonly [string, number])[]): void;
}

/**
 * Creates the observers of one daemon. At once it logs what the configuration turned off (TLS checks) and who
 * receives messages, puts the providers in health, and creates their delivery series at zero.
 */
export function createObservers(options: {
  metrics: Metrics;
  health: HealthRegistry;
  logger: Logger;
  config: Config;
  router: Pick<Router, "active" | "inactive" | "warning" | "communityNotes">;
  /** The edition when the observers are created: Community says what it leaves out of the configuration. */
  edition: () => Edition;
  /** Epoch ms now, for the traces. */
  now: () => number;
}): Observers {
  const { metrics, health, logger, config, router } = options;
  const traces = new Traces();
  const history = new TellHistory();
  const trace = (job: Dispatch, step: "delivered" | "failed" | "decided", text: string) =>
    traces.delivery(job.message.incidentId, step, `${text} (${job.message.action} ${job.message.id})`, options.now());
  if (config.app.insecureSkipTLSVerify) {
    logger.warn("app.insecureSkipTLSVerify is on: outbound HTTPS certificates are not verified");
  }
  if (config.kubelet.insecureSkipVerify) {
    logger.warn(
      "kubelet.insecureSkipVerify is on: the ServiceAccount token is sent to kubelets whose certificates are not verified",
    );
  }
  if (router.warning) logger.warn(router.warning);
  // What Community leaves out of the configuration is said once at startup, never silently dropped.
  if (options.edition() !== "pro") for (const note of router.communityNotes) logger.warn(note.message);
  const announceProviders = () => {
    health.setProviders(router.active, router.inactive);
    if (router.active.length === 0) {
      logger.warn("no alert provider is configured: incidents are detected and counted but delivered nowhere");
    } else {
      const inactive = router.inactive.length ? ` (inactive in Community: ${router.inactive.join(", ")})` : "";
      logger.info(`delivering to ${router.active.join(", ")}${inactive}`);
    }
    initDeliverySeries(metrics, router.active, {
      retry: ["network", "timeout", "server_error", "unavailable", "rate_limited", "provider_error"],
      dropped: ["retries_exhausted", "retry_window"],
      deadLetter: ["unauthorized", "rejected"],
      terminal: ["retries_exhausted", "retry_window", "unauthorized", "rejected"],
      pending: ["outbox_full", "expired", "provider_removed"],
    });
    for (const provider of router.active) health.set(`provider-${provider}`, "ok");
  };
  announceProviders();
  const countedEvents = new Set<string>();
  let auditDrops = 0;
  let inGrace = false;

  const delivery: DeliveryHooks = {
    attempted: (job) => metrics.deliveryNotifications.inc({ provider: job.provider }),
    retried(job, { failure, detail }, attempt, waitMs) {
      metrics.deliveryRetries.inc({ provider: job.provider, reason: failure });
      health.set(`provider-${job.provider}`, "degraded", {
        reason: failure === "rate_limited" ? "provider_rate_limited" : "provider_unavailable",
      });
      if (attempt === 1) trace(job, "failed", `${job.provider} failed, retrying: ${failure}`);
      if (attempt === 1 || attempt % 10 === 0) {
        logger.warn(
          `delivery to ${job.provider} failed (${reasonText(failure, detail)}); retry ${attempt} in ${Math.round(waitMs / 1000)} s`,
        );
      }
    },
    shortened(job, level, detail) {
      metrics.deliveryShortened.inc({ provider: job.provider });
      logger.info(
        `delivery to ${job.provider}: message ${job.message.id} too large (${redact(detail).text.slice(0, 160)}); sent again ${level > 0 ? `shortened (level ${level})` : "split in two"}`,
      );
    },
    delivered(job, outcome) {
      health.set(`provider-${job.provider}`, "ok");
      trace(job, "delivered", `delivered to ${job.provider}`);
      if (outcome.untracked) {
        metrics.trackerUntracked.inc();
        logger.warn(
          `${job.provider}: the issue created for ${job.message.incidentId} was not named in the answer; later messages will look it up by its key`,
        );
      }
    },
    folded(job) {
      metrics.deliveryBudgetFolded.inc({ provider: job.provider });
      trace(job, "decided", `${job.provider}: hourly budget reached, goes into its overflow digest`);
      logger.info(
        `${job.provider}: hourly budget reached; ${job.message.action} ${job.message.incidentId} goes into the overflow digest`,
      );
    },
    rejected(job, _letter, { failure, detail }) {
      metrics.deliveryDeadLetters.inc({ provider: job.provider, reason: failure });
      trace(job, "failed", `refused by ${job.provider} for good (${failure}): dead-lettered`);
      health.set(`provider-${job.provider}`, "degraded", { reason: "provider_rejected" });
      logger.error(
        `delivery to ${job.provider} rejected permanently (${reasonText(failure, detail)}); message ${job.message.id} dead-lettered, not retried`,
      );
    },
    gaveUp(job, settled) {
      const why = settled.failure === "retries_exhausted" ? " (retry.maxAttempts)" : " over 24 h";
      trace(job, "failed", `${job.provider} gave up after ${settled.attempts} attempts${why}`);
      logger.error(
        `delivery to ${job.provider} gave up after ${settled.attempts} attempt${settled.attempts === 1 ? "" : "s"}${why} (${reasonText(settled.last.failure, settled.detail)}); message ${job.message.id} not delivered there`,
      );
    },
    handedOver(job, to, send) {
      logger.warn(
        send
          ? `delivery: ${job.provider} failed for good for message ${job.message.id}; handing it to its fallback ${to}`
          : `delivery: ${job.provider} failed for good for message ${job.message.id}; its fallback ${to} already has it`,
      );
    },
    lost(job, failure) {
      if (failure === "retries_exhausted" || failure === "retry_window") {
        metrics.deliveryDropped.inc({ provider: job.provider, reason: failure });
      }
      metrics.deliveryTerminalErrors.inc({ provider: job.provider, reason: failure });
      if (job.message.action === "resolve" || job.message.action === "opened_resolved") {
        metrics.deliveryResolvesLost.inc({ provider: job.provider });
      }
    },
    pendingDropped(job, failure) {
      metrics.deliveryPendingDropped.inc({ provider: job.provider, reason: failure });
      if (failure === "outbox_full" || failure === "expired") metrics.deliveryOutboxDropped.inc();
      if (failure === "outbox_full") {
        metrics.deliveryQueueSaturated.inc({ provider: job.provider });
        logger.error(`delivery: outbox full; message ${job.message.id} for ${job.provider} dropped before delivery`);
      } else if (failure === "expired") {
        logger.error(`delivery: message ${job.message.id} for ${job.provider} waited over 24 h in the outbox; dropped`);
      } else {
        logger.warn(
          `delivery: message ${job.message.id} was queued for ${job.provider}, which no longer receives messages; dropped`,
        );
      }
    },
    combined(job) {
      logger.debug(
        `delivery to ${job.provider}: ${job.message.incidentId} resolved before its announcement went out; sending one combined message`,
      );
    },
    queueDepth: (provider, depth) => metrics.deliveryQueueDepth.set({ provider }, depth),
  };

  return {
    delivery,
    editionChanged: announceProviders,
    auditDropped(count, why, output, error) {
      metrics.auditDropped.inc(count);
      // One line for the first loss and then one per thousand, so a stuck disk does not flood the log.
      if (auditDrops === 0 || Math.floor((auditDrops + count) / 1000) > Math.floor(auditDrops / 1000)) {
        const cause =
          why === "queue_full" ? "queue full" : `cannot write ${output}: ${error?.message ?? "unknown error"}`;
        logger.warn(
          `audit log: ${count} entr${count === 1 ? "y" : "ies"} dropped (${cause}); counted in mon_audit_dropped_total`,
        );
      }
      auditDrops += count;
    },
    deferred(left) {
      let total = 0;
      for (const [provider, depth] of left) {
        metrics.deliveryDeferred.inc({ provider }, depth);
        total += depth;
        // The drain ran out of time with this provider's messages queued (spec 7.3).
        if (depth > 0) health.set(`provider-${provider}`, "degraded", { reason: "provider_shutdown_timeout" });
      }
      logger.warn(
        `shutdown: ${total} message(s) still queued were not delivered (counted in mon_delivery_deferred_total)`,
      );
    },
    traces,
    history,
    unwatched(kind) {
      // Coverage names kinds by `group/resource` (`secrets`, `apps/deployments`).
      const known = KNOWN_KINDS.find((k) => k.kind === kind);
      const key = known ? kindKey(known) : kind;
      return health.report().coverage.kinds.find((k) => k.kind === key)?.reason;
    },
    pass(result) {
      if (result.traces) traces.pass(result.traces, options.now());
      if (result.panicked) {
        metrics.panicsRecovered.inc({ stage: result.panicked.stage });
        logger.error(
          `pass failed in stage ${result.panicked.stage}: ${result.panicked.error}; nothing was decided, the next pass tries again`,
        );
      }
      for (const a of result.setAside ?? []) {
        // Spec 4.2 names the stages coarsely: correlation and lifecycle are `incident`, rendering `compose`.
        metrics.panicsRecovered.inc({ stage: a.stage === "compose" ? "compose" : "incident" });
        logger.error(
          `stage ${a.stage} failed on ${a.id}: ${a.error}; it is set aside (${a.stage === "compose" ? "told in its plain form" : "an open incident keeps its state"}), the pass goes on for everything else`,
        );
      }
      for (const q of result.quarantined) {
        metrics.panicsRecovered.inc({ stage: "detector" });
        logger.error(
          `detector ${q.detector} failed on ${q.object} (resourceVersion ${q.resourceVersion}): ${q.error}; that object is skipped until it changes, the pass goes on for everything else`,
        );
      }
      // Said while objects are set aside (spec 7.3 has no more specific reason for it).
      if (result.quarantinedTotal > 0) health.set("detection", "degraded", { reason: "component_failed" });
      else if (health.get("detection")) health.set("detection", "ok");
      for (const name of result.failedDetectors) {
        metrics.panicsRecovered.inc({ stage: "detector" });
        logger.error(`detector ${name} failed; its incidents are kept unchanged until it works again`);
      }
      for (const uid of result.unexplainedEvents) {
        if (countedEvents.has(uid)) continue;
        countedEvents.add(uid);
        metrics.unexplained.inc({ kind: "event" });
        // Bounded memory: events older than the window are never seen again anyway.
        if (countedEvents.size > 20_000) countedEvents.delete(countedEvents.values().next().value as string);
      }
      metrics.redactedValues.inc(result.redacted);
      metrics.renderedDetailsOmitted.inc(result.omitted);
      for (const d of result.decisions) {
        metrics.incidentsTotal.inc({ action: d.action });
        if ((d.action === "announce" || d.action === "opened_resolved") && isUnexplained(d.incident)) {
          metrics.unexplained.inc({ kind: "incident" });
        }
      }
      metrics.incidentsOpen.set(result.open);
      metrics.symptomsWaiting.set(result.waitingSymptoms);
      metrics.findingsInGrace.set(result.inGrace.count);
      // Said once when it starts and once when it ends, so a first test on a fresh cluster is no mystery.
      if (result.inGrace.count > 0 !== inGrace) {
        inGrace = result.inGrace.count > 0;
        logger.info(
          inGrace
            ? `young-node grace: ${result.inGrace.count} finding(s) on pods of nodes younger than 10 minutes are held until ${new Date(result.inGrace.until).toISOString()} (spec 1.8)`
            : "young-node grace: no finding is held any more",
        );
      }
    },
  };
}

/** A failure reason and the provider's words, without saying the reason twice (`network: host ECONNREFUSED`). */
function reasonText(failure: string, detail: string): string {
  return detail === failure || detail.startsWith(`${failure}:`) ? detail : `${failure}: ${detail}`;
}
