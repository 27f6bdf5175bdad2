import type { ConfigDomain } from "./config/load.ts";
import { REASONS } from "./detect/catalogue.ts";
import { PROVIDERS } from "./providers/_registry.gen.ts";

/** What mon's configuration is checked against: every provider's option schema and every catalogue reason name. */
export const CONFIG_DOMAIN: ConfigDomain = Object.freeze({
  providers: PROVIDERS,
  reasons: Object.freeze(REASONS.map((r) => r.reason)),
});
