import { defineGenie } from "./_kit/genie.ts";

/**
 * Opsgenie (providers.md `opsgenie`; end of sale announced — `jsmOps` is its successor and shares this code
 * path). `check` lists one alert: 200, or 403 for a key that may not read, prove the key; 401 does not.
 */
export default defineGenie({
  name: "opsgenie",
  title: "Opsgenie",
  guide: { credential: "Settings → Integrations → Add → API; copy the API key." },
  baseUrl: (o) => o.url ?? (o.region === "eu" ? "https://api.eu.opsgenie.com" : "https://api.opsgenie.com"),
  check: true,
});
