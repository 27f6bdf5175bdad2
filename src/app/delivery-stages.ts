import { shrinkMessage, splitMessage } from "../notify/shrink.ts";
import type { Config } from "../config/schema.ts";
import { createDelivery, type Delivery } from "../deliver/delivery.ts";
import type { HealthRegistry } from "../health/registry.ts";
import type { Metrics } from "../metrics.ts";
import type { Edition } from "../model/edition.ts";
import type { DeliveryStore } from "../model/job.ts";
import { redact } from "../redact/redact.ts";
import { createRouter, type Router } from "../route/router.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { deliveryProviders } from "./delivery-providers.ts";
import { createObservers, type Observers } from "./observe.ts";
import type { Prepared } from "./prepare.ts";

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
  return { router, observe, delivery };
}
