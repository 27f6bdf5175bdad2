import { shrinkMessage, splitMessage } from "../../notify/shrink.ts";
import type { Config } from "../../config/schema.ts";
import { createDelivery, type Delivery } from "../../deliver/delivery.ts";
import type { HealthRegistry } from "../../health/registry.ts";
import type { Metrics } from "../../metrics.ts";
import type { Edition } from "../../model/edition.ts";
import type { DeliveryStore, Dispatch } from "../../model/dispatch.ts";
import { fencedStore } from "../../state/fenced.ts";
import { createOutgoing, type Outgoing } from "./outgoing.ts";
import { refusedOnce } from "../replica/state.ts";
import { providerTemplates, templated } from "./templates.ts";
import { redact } from "../../redact/redact.ts";
import { createRouter, type Router } from "../../route/router.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import { deliveryProviders } from "./providers.ts";
import { createObservers, type Observers } from "./observe.ts";
import { createPageKeeper } from "./page-keeper.ts";
import type { StateStore } from "../../state/store.ts";
import type { Prepared } from "./prepare.ts";

/** What the leader's work uses of delivery: the stages, and the outgoing side that feeds them. */
export interface DeliverySide {
  readonly router: Router;
  readonly observe: Observers;
  readonly delivery: Delivery;
  readonly outgoing: Outgoing;
  /**
   * What the passes decided reaches the queues, delivery runs for up to `drainMs` (ms), then stops and the
   * providers close. Resolves the providers' queue depths when something is left, else undefined.
   */
  drain(drainMs: number): Promise<[string, number][] | undefined>;
}

/**
 * Opens delivery for the leader's work: fencing first (only the holder of the state lock under the term it led
 * with may write the outbox or send: `holds`), then the stages below, the conversations' providers and the
 * outbox restored from `store` (the state store's delivery records), and the outgoing side — redaction,
 * routing and, while the edition is Pro, the templates of plain-text providers (spec 2.1 `templates`).
 */
export async function openDeliverySide(
  options: Omit<Parameters<typeof createDeliveryStages>[0], "records"> & {
    store: DeliveryStore;
    cluster: string;
    /** Where the incidents page's history is kept while it is persistent (Pro's state file; issue 54). */
    pageStore?: () => StateStore;
  },
): Promise<DeliverySide> {
  const { prepared, config, holds, logger } = options;
  const records = holds ? fencedStore(options.store, holds, refusedOnce(logger)) : options.store;
  const { router, observe, delivery } = createDeliveryStages({ ...options, records });
  const page = options.pageStore
    ? createPageKeeper({ store: options.pageStore, history: observe.history, logger, ...(holds ? { holds } : {}) })
    : undefined;
  const restored = await page?.restore(options.clock.now());
  if (restored) logger.info(`the incidents page: ${restored} incident(s) told before restored from the state store`);
  router.restore(await records.loadRoutes());
  const resumed = await delivery.restore();
  if (resumed > 0) logger.info(`resumed ${resumed} message(s) left in the outbox by the previous process`);
  const templates = providerTemplates(config, prepared.providers);
  const pro = () => options.edition() === "pro";
  const outgoing = createOutgoing({
    router,
    delivery,
    metrics: options.metrics,
    logger,
    cluster: options.cluster,
    history: {
      sent(message, jobs, now) {
        observe.history.sent(message, jobs, now);
        page?.changed();
      },
    },
    ...(templates.size
      ? { templated: (job: Dispatch) => (pro() ? templated(job, templates.get(job.provider)) : job) }
      : {}),
  });
  return {
    router,
    observe,
    delivery,
    outgoing,
    async drain(drainMs) {
      await outgoing.settled();
      await page?.flushed();
      const left = (await delivery.drain(drainMs))
        ? undefined
        : router.active.map((p): [string, number] => [p, delivery.depth(p)]);
      delivery.stop();
      for (const p of prepared.providers) p.provider.close?.();
      return left;
    },
  };
}

/**
 * Everything after a pass decided (ARCHITECTURE.md "deliver/"): the router (who receives what in the current
 * edition; which providers hold each conversation, kept in `records`), the observers that map stage hooks to
 * metrics, health and logs, and delivery over every configured provider with its records in `records`
 * (fenced by the state lock when `holds` is given: a deposed leader never sends).
 */
export function createDeliveryStages(options: {
  prepared: Prepared;
  config: Config;
  edition: () => Edition;
  records: DeliveryStore;
  holds?: () => boolean;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  health: HealthRegistry;
}): { router: Router; observe: Observers; delivery: Delivery } {
  const { prepared, config, records, logger } = options;
  const router = createRouter({
    providers: prepared.providers.map((p) => ({ name: p.definition.name, kind: p.definition.kind, ...p.common })),
    communityProvider: config.app.communityProvider,
    edition: options.edition,
    // Who holds each conversation survives a restart (Pro state file), so the resolve goes where the announcement went.
    onConversation: (id, providers) =>
      void (providers ? records.saveRoute(id, providers) : records.removeRoute(id)).catch((error: unknown) =>
        logger.warn(`state store: recording the providers of ${id} failed: ${(error as Error).message}`),
      ),
  });
  const observe = createObservers({
    metrics: options.metrics,
    health: options.health,
    logger,
    config,
    router,
    edition: options.edition,
    now: () => options.clock.now(),
  });
  const delivery = createDelivery({
    // Every configured provider: the router decides who receives what in the current edition.
    providers: deliveryProviders(
      prepared.providers,
      prepared.providers.map((p) => p.definition.name),
    ),
    isActive: (name) => router.active.includes(name),
    ...(options.holds ? { canSend: options.holds } : {}),
    clock: options.clock,
    logger,
    hooks: observe.delivery,
    store: records,
    clean: (text) => redact(text).text,
    onJoin: (id, provider) => router.join(id, provider),
    // A message refused for size is told anyway: shorter, then split by what it covers (issue 30).
    shortener: { shrink: shrinkMessage, split: splitMessage },
  });
  // The outbox as Prometheus reads it: the age of each provider's oldest message, and the depth of all.
  options.metrics.sources.outboxAges = () =>
    router.active.map((p) => {
      const oldest = delivery.oldest(p);
      return [p, oldest === undefined ? 0 : Math.max(0, (options.clock.now() - oldest) / 1000)] as const;
    });
  options.metrics.sources.outboxDepth = () => router.active.reduce((n, p) => n + delivery.depth(p), 0);
  return { router, observe, delivery };
}
