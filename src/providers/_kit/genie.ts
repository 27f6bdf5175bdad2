import { permanent } from "./outcome.ts";
import { severityOf } from "./severity.ts";
import * as v from "valibot";
import { answerDetails } from "./answers.ts";
import type { Message } from "../../model/message.ts";
import { defineProvider, type ProviderDefinition, type ProviderGuide } from "./define.ts";
import { sendAndClassify, truncate } from "./http.ts";
import { ends, shortKey } from "./keys.ts";

/** Opsgenie-compatible alert API limits (providers.md `opsgenie`): message 130, alias 512, description 15,000 characters. */
const MESSAGE_MAX = 130;
const ALIAS_MAX = 512;
const DESCRIPTION_MAX = 15_000;

/**
 * The Opsgenie alert API family (providers.md 5 "Opsgenie family"), shared by `opsgenie` and `jsmOps` (its
 * successor in Jira Service Management, same API under another base URL): the announcement creates an alert
 * whose `alias` is the incident's dedup key, updates add notes to that alias, the resolve closes it. Writes
 * are asynchronous (202 with a `requestId`). `GenieKey` authorization.
 */
export function defineGenie(spec: {
  name: string;
  title: string;
  guide?: ProviderGuide;
  baseUrl: (options: { region: "us" | "eu"; url?: string }) => string;
  check: boolean;
}): Readonly<ProviderDefinition> {
  const Options = v.object({
    apiKey: v.pipe(v.string(), v.minLength(8), v.description("API integration key (a credential: ${file:/path}).")),
    region: v.optional(v.pipe(v.picklist(["us", "eu"]), v.description("`eu` for the EU instance.")), "us"),
    url: v.optional(v.pipe(v.string(), v.url(), v.description("API base URL; overrides `region`."))),
    tags: v.optional(
      v.pipe(
        v.array(v.pipe(v.string(), v.maxLength(50))),
        v.maxLength(20),
        v.description("Tags on every alert (≤ 20, ≤ 50 characters)."),
      ),
    ),
    responders: v.optional(
      v.pipe(
        v.array(v.object({ type: v.picklist(["team", "user", "escalation", "schedule"]), name: v.string() })),
        v.description("Who the alert notifies."),
      ),
    ),
  });
  return defineProvider({
    name: spec.name,
    kind: "paging",
    title: spec.title,
    ...(spec.guide ? { guide: spec.guide } : {}),
    threading: "dedup_key",
    options: Options,
    credentials: ["apiKey"],
    create(options, deps) {
      const base = spec.baseUrl(options).replace(/\/+$/, "");
      const post = async (path: string, body: unknown, signal: AbortSignal, now: number) =>
        (
          await sendAndClassify(
            deps.http,
            {
              url: `${base}${path}`,
              headers: { "content-type": "application/json", authorization: `GenieKey ${options.apiKey}` },
              body: JSON.stringify(body),
              signal,
            },
            now,
          )
        ).outcome;
      return {
        async send(message, context) {
          const alias = encodeURIComponent(shortKey(message.dedupKey, ALIAS_MAX));
          if (ends(message))
            return post(
              `/v2/alerts/${alias}/close?identifierType=alias`,
              { source: "mon", note: truncate(message.text, DESCRIPTION_MAX) },
              context.signal,
              context.now,
            );
          if (message.action === "update")
            return post(
              `/v2/alerts/${alias}/notes?identifierType=alias`,
              { source: "mon", note: truncate(message.text, DESCRIPTION_MAX) },
              context.signal,
              context.now,
            );
          return post(
            "/v2/alerts",
            genieAlert(message, options.tags ?? [], options.responders ?? [], deps.clusterName),
            context.signal,
            context.now,
          );
        },
        ...(spec.check
          ? {
              async check(signal: AbortSignal) {
                const answer = await deps.http.request({
                  method: "GET",
                  url: `${base}/v2/alerts?limit=1`,
                  headers: { authorization: `GenieKey ${options.apiKey}` },
                  signal,
                });
                // 403: the key is valid but may not read alerts; it can still create and close them.
                if (answer.status === 200 || answer.status === 403) return { kind: "ok" as const };
                return permanent(`http_${answer.status}`);
              },
            }
          : {}),
      };
    },
  });
}

/** The create-alert body for an announcement. */
export function genieAlert(
  message: Message,
  tags: readonly string[],
  responders: readonly { type: string; name: string }[],
  cluster: string,
): Record<string, unknown> {
  return {
    message: truncate(message.title, MESSAGE_MAX, "…"),
    alias: shortKey(message.dedupKey, ALIAS_MAX),
    description: truncate(message.text, DESCRIPTION_MAX),
    priority: severityOf(message, ["P1", "P2", "P3", "P5"]),
    source: "mon",
    entity: `${cluster}/${message.root.namespace ? `${message.root.namespace}/` : ""}${message.root.name}`,
    tags: [...tags, "mon"].slice(0, 20),
    details: {
      cluster,
      reason: message.reason,
      tier: message.tier,
      dedupKey: message.dedupKey,
      ...answerDetails(message),
    },
    ...(responders.length ? { responders } : {}),
  };
}
