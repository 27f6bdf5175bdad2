import { parseDuration } from "../../config/duration.ts";
import type { DeliveryProvider } from "../../deliver/delivery.ts";
import type { ConfiguredProvider } from "../../providers/_kit/build.ts";

/**
 * The active providers as delivery sees them: each one's sender, kind and delivery settings (spec 2.4
 * `hourlyBudget`, `retry`, `fallback`), `retry.delay` read as milliseconds.
 */
export function deliveryProviders(
  configured: readonly ConfiguredProvider[],
  active: readonly string[],
): DeliveryProvider[] {
  return configured
    .filter((p) => active.includes(p.definition.name))
    .map(({ definition, provider, common }) => ({
      name: definition.name,
      kind: definition.kind,
      sender: provider,
      hourlyBudget: common.hourlyBudget,
      ...(common.fallback ? { fallback: common.fallback } : {}),
      ...(common.retry
        ? {
            retry: {
              ...(common.retry.maxAttempts !== undefined ? { maxAttempts: common.retry.maxAttempts } : {}),
              ...(common.retry.delay !== undefined ? { delayMs: parseDuration(common.retry.delay) } : {}),
            },
          }
        : {}),
    }));
}
