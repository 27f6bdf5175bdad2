import { bearer } from "./_kit/auth.ts";
import * as v from "valibot";
import type { Outcome } from "../model/dispatch.ts";
import { jsonApi, parseJson, truncate } from "./_kit/http.ts";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { ends } from "./_kit/keys.ts";

const Options = v.object({
  apiToken: v.pipe(v.string(), v.minLength(8), v.description("Team Uptime API token (a credential: ${file:/path}).")),
  requesterEmail: v.pipe(v.string(), v.email(), v.description("Email of the person the incidents are requested by.")),
  url: v.optional(
    v.pipe(v.string(), v.url(), v.description("Uptime API base.")),
    "https://uptime.betterstack.com/api/v3",
  ),
  call: v.optional(v.pipe(v.boolean(), v.description("Phone call for page-tier incidents.")), false),
});

/**
 * Better Stack Incidents (providers.md `betterStack`): Better Stack has no dedup key, so the created
 * incident's id is the conversation (persisted by mon); updates are not sent (no update call exists), and
 * the resolve is `POST /incidents/{id}/resolve` (409: already resolved, which is success). The key is in the
 * incident's name and description. `check` lists one incident.
 */
export default defineProvider({
  name: "betterStack",
  kind: "paging",
  title: "Better Stack Incidents",
  guide: { credential: "Uptime → Integrations → API tokens → Create (team token)." },
  threading: "dedup_key",
  options: Options,
  credentials: ["apiToken"],
  create(options, deps) {
    const call = jsonApi(deps.http, options.url.replace(/\/+$/, ""), { authorization: bearer(options.apiToken) });
    return {
      async send(message, context): Promise<Outcome> {
        if (ends(message)) {
          if (!context.conversation) return { kind: "ok" };
          const { outcome, answer } = await call(
            "POST",
            `/incidents/${context.conversation}/resolve`,
            { resolved_by: options.requesterEmail },
            context.signal,
            context.now,
          );
          return answer?.status === 409 ? { kind: "ok" } : outcome;
        }
        if (message.action === "update")
          return { kind: "ok", ...(context.conversation ? { conversation: context.conversation } : {}) };
        const body = {
          requester_email: options.requesterEmail,
          name: truncate(`${message.title} [${message.dedupKey}]`, 250, "…"),
          summary: truncate(message.title, 250),
          description: truncate(`${message.text}\n\nmon dedup key: ${message.dedupKey}`, 10_000),
          call: options.call && message.mode === "page",
          sms: false,
          email: true,
          push: true,
        };
        const { outcome, answer } = await call("POST", "/incidents", body, context.signal, context.now);
        if (outcome.kind !== "ok") return outcome;
        const id = parseJson<{ data?: { id?: string | number } }>(answer?.body)?.data?.id;
        return id !== undefined ? { kind: "ok", conversation: String(id) } : { kind: "ok", untracked: true };
      },
      check: async (signal) => (await call("GET", "/incidents?per_page=1", undefined, signal, nowOf(deps))).outcome,
    };
  },
});
