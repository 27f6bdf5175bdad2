import { bearer, basic } from "./_kit/auth.ts";
import { severityOf } from "./_kit/severity.ts";
import * as v from "valibot";
import type { Message } from "../model/message.ts";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { sendAndClassify, truncateBytes } from "./_kit/http.ts";
import { base64, shortKey } from "./_kit/keys.ts";

/** ntfy turns a body over 4,096 bytes into an attachment: the text is cut to stay a message. */
const BODY_MAX_BYTES = 4_000;

const Options = v.pipe(
  v.object({
    url: v.optional(v.pipe(v.string(), v.url(), v.description("Server URL.")), "https://ntfy.sh"),
    topic: v.pipe(
      v.string(),
      v.regex(/^[-_A-Za-z0-9]{1,64}$/, "must be a topic name (letters, digits, - and _)"),
      v.description("Topic to publish to."),
    ),
    accessToken: v.optional(v.pipe(v.string(), v.description("Access token `tk_…` (a credential: ${file:/path})."))),
    username: v.optional(v.pipe(v.string(), v.description("User for basic auth, with `password`."))),
    password: v.optional(v.pipe(v.string(), v.description("Password for basic auth (a credential: ${file:/path})."))),
  }),
  v.check((o) => !(o.accessToken && o.password), "set accessToken or username/password, not both"),
  v.check((o) => Boolean(o.username) === Boolean(o.password), "username and password go together"),
);

/**
 * ntfy (providers.md `ntfy`): the text as the body, `Title`, `Priority` (5 for page-tier, 4 high, 3
 * otherwise, 2 for low-priority) and `Tags` headers. Every message of an incident carries one `X-Sequence-ID`
 * derived from its key, so ntfy ≥ 2.16 updates that notification in place (older servers post a new one).
 * `check` calls `GET /{topic}/auth`, which publishes nothing.
 */
export default defineProvider({
  name: "ntfy",
  kind: "info",
  title: "ntfy",
  guide: {
    credential: "ntfy account → Access tokens (tk_…); or a user and password; none for an open topic.",
    requires: { username: ["password"] },
  },
  threading: "edit",
  options: Options,
  credentials: ["accessToken", "password"],
  plainText: true,
  create(options, deps) {
    const auth = options.accessToken
      ? bearer(options.accessToken)
      : options.password
        ? basic(options.username ?? "", options.password)
        : undefined;
    return {
      async send(message, context) {
        const request = {
          url: `${options.url.replace(/\/+$/, "")}/${options.topic}`,
          headers: { ...ntfyHeaders(message), ...(auth ? { authorization: auth } : {}) },
          body: truncateBytes(message.text, BODY_MAX_BYTES),
          signal: context.signal,
        };
        return (await sendAndClassify(deps.http, request, context.now)).outcome;
      },
      // Read access to the topic proves the server, the topic and the credentials without publishing.
      check: async (signal) =>
        (
          await sendAndClassify(
            deps.http,
            {
              method: "GET",
              url: `${options.url.replace(/\/+$/, "")}/${options.topic}/auth`,
              headers: auth ? { authorization: auth } : {},
              signal,
            },
            nowOf(deps),
          )
        ).outcome,
    };
  },
});

/** The publish headers for one message (values ASCII-safe: ntfy reads RFC 2047-encoded titles). */
export function ntfyHeaders(message: Message): Record<string, string> {
  const priority = severityOf(message, ["5", "4", "3", "2"]);
  const tag =
    message.action === "resolve" || message.action === "opened_resolved"
      ? "white_check_mark"
      : message.mode === "page"
        ? "rotating_light"
        : "warning";
  return {
    "content-type": "text/plain; charset=utf-8",
    title: `=?UTF-8?B?${base64(message.title.slice(0, 250))}?=`,
    priority,
    tags: tag,
    "x-sequence-id": shortKey(message.root.kind === "Cluster" ? message.incidentId : message.dedupKey, 64).replace(
      /[^-_A-Za-z0-9]/g,
      "-",
    ),
  };
}
