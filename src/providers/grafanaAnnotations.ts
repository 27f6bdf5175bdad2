import { bearer } from "./_kit/auth.ts";
import * as v from "valibot";
import type { Outcome } from "../model/dispatch.ts";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { idFrom, jsonApi, truncate } from "./_kit/http.ts";
import { ends, shortKey } from "./_kit/keys.ts";

const Options = v.object({
  url: v.pipe(v.string(), v.url(), v.description("Grafana URL.")),
  serviceAccountToken: v.pipe(
    v.string(),
    v.minLength(8),
    v.description("Service account token with annotation write rights (a credential: ${file:/path})."),
  ),
  dashboardUid: v.optional(v.pipe(v.string(), v.description("Dashboard to annotate; organization-wide without it."))),
  panelId: v.optional(v.pipe(v.number(), v.integer(), v.description("Panel of that dashboard."))),
  tags: v.optional(
    v.pipe(v.array(v.string()), v.description("Tags on every annotation besides `mon` and the incident's key.")),
    [],
  ),
});

/**
 * Grafana annotations (providers.md `grafanaAnnotations`): the announcement creates an annotation tagged
 * `mon` and the incident's key; its id is the conversation. Updates patch its text; the resolve patches
 * `timeEnd`, turning it into a region spanning the incident. `check` reads `/api/org`.
 */
export default defineProvider({
  name: "grafanaAnnotations",
  kind: "info",
  title: "Grafana annotations",
  guide: { credential: "Administration → Service accounts → Add (Editor) → Add token." },
  threading: "edit",
  options: Options,
  credentials: ["serviceAccountToken"],
  create(options, deps) {
    const base = options.url.replace(/\/+$/, "");
    const call = jsonApi(deps.http, base, { authorization: bearer(options.serviceAccountToken) });
    return {
      async send(message, context): Promise<Outcome> {
        const text = truncate(message.text, 10_000);
        if (context.conversation && message.action !== "announce" && message.action !== "opened_resolved") {
          const patch = { text, ...(ends(message) ? { timeEnd: message.at } : {}) };
          const { outcome } = await call(
            "PATCH",
            `/api/annotations/${context.conversation}`,
            patch,
            context.signal,
            context.now,
          );
          return outcome.kind === "ok" ? { kind: "ok", conversation: context.conversation } : outcome;
        }
        const body = {
          ...(options.dashboardUid ? { dashboardUID: options.dashboardUid } : {}),
          ...(options.panelId !== undefined ? { panelId: options.panelId } : {}),
          time: message.at,
          ...(message.action === "opened_resolved" ? { timeEnd: message.at } : {}),
          tags: [...options.tags, "mon", shortKey(message.dedupKey, 100)],
          text,
        };
        const { outcome, answer } = await call("POST", "/api/annotations", body, context.signal, context.now);
        if (outcome.kind !== "ok") return outcome;
        const id = idFrom(answer?.body);
        return id ? { kind: "ok", conversation: id } : { kind: "ok" };
      },
      async check(signal) {
        return (await call("GET", "/api/org", undefined, signal, nowOf(deps))).outcome;
      },
    };
  },
});
