import { defineGenie } from "./_kit/genie.ts";

/**
 * Jira Service Management Operations (providers.md `jsmOps`): Opsgenie's successor, the same alert API under
 * `https://api.atlassian.com/jsm/ops/integration`, with a JSM API-integration key (Atlassian API tokens are not
 * accepted). No check call is documented for integration keys.
 */
export default defineGenie({
  name: "jsmOps",
  title: "Jira Service Management Operations",
  guide: {
    credential:
      "Jira Service Management → Operations → Integrations → Add → API; copy its API key (not an Atlassian API token).",
  },
  baseUrl: (o) => o.url ?? "https://api.atlassian.com/jsm/ops/integration",
  check: false,
});
