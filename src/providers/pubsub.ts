import { permanent } from "./_kit/outcome.ts";
import { webhookBody } from "./_kit/event-body.ts";
import { bearer } from "./_kit/auth.ts";
import * as v from "valibot";
import type { Outcome } from "../model/dispatch.ts";
import type { HttpAnswer, HttpClient } from "../outbound/client.ts";
import { defineProvider } from "./_kit/define.ts";
import { classifyError, formApi, jsonApi, parseJson, sendAndClassify } from "./_kit/http.ts";
import { base64 } from "./_kit/keys.ts";

const Options = v.object({
  project: v.pipe(
    v.string(),
    v.regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, "must be a Google Cloud project id"),
    v.description("Project id."),
  ),
  topic: v.pipe(
    v.string(),
    v.regex(/^[A-Za-z][A-Za-z0-9._~%+-]{2,254}$/, "must be a Pub/Sub topic name"),
    v.description("Topic name."),
  ),
  serviceAccountKey: v.optional(
    v.pipe(
      v.string(),
      v.description(
        "Service account key JSON; without it, GKE Workload Identity (the metadata server) is used (a credential: ${file:/path}).",
      ),
    ),
  ),
  orderingKey: v.optional(
    v.pipe(
      v.boolean(),
      v.description("Publish with the incident key as ordering key (the subscription must enable ordering)."),
    ),
    false,
  ),
  apiUrl: v.optional(v.pipe(v.string(), v.url(), v.description("Pub/Sub API base.")), "https://pubsub.googleapis.com"),
  metadataUrl: v.optional(
    v.pipe(v.string(), v.url(), v.description("Metadata server, for Workload Identity.")),
    "http://metadata.google.internal",
  ),
});

const SCOPE = "https://www.googleapis.com/auth/pubsub";

/**
 * Google Cloud Pub/Sub (providers.md `pubsub`): one message per mon message, its data the incident as JSON
 * and its attributes `dedupKey` and `action`. Access tokens come from a service account key (a JWT signed
 * RS256 with WebCrypto, exchanged at the key's token URI) or, without a key, from the GKE metadata server;
 * each is kept until 5 minutes before it expires.
 */
export default defineProvider({
  name: "pubsub",
  kind: "info",
  title: "Google Cloud Pub/Sub",
  guide: {
    credential: "GKE Workload Identity with roles/pubsub.publisher (no secret); or a service account key JSON.",
  },
  threading: "dedup_key",
  options: Options,
  credentials: ["serviceAccountKey"],
  create(options, deps) {
    const tokens = googleTokens(options, deps.http);
    return {
      async send(message, context): Promise<Outcome> {
        const token = await tokens(context.signal, context.now);
        if (typeof token !== "string") return token;
        const data = webhookBody(message, deps.clusterName);
        const body = {
          messages: [
            {
              data: base64(JSON.stringify(data)),
              attributes: { dedupKey: message.dedupKey, action: message.action },
              ...(options.orderingKey ? { orderingKey: message.dedupKey } : {}),
            },
          ],
        };
        const call = jsonApi(deps.http, options.apiUrl.replace(/\/+$/, ""), { authorization: bearer(token) });
        return (
          await call(
            "POST",
            `/v1/projects/${options.project}/topics/${encodeURIComponent(options.topic)}:publish`,
            body,
            context.signal,
            context.now,
          )
        ).outcome;
      },
    };
  },
});

/** Access tokens for Pub/Sub: from the service account key, else the metadata server; cached until near expiry. */
function googleTokens(options: { serviceAccountKey?: string; metadataUrl: string }, http: HttpClient) {
  let cached: { token: string; expiresAt: number } | undefined;
  return async (signal: AbortSignal, now: number): Promise<string | Outcome> => {
    if (cached && cached.expiresAt - 5 * 60_000 > now) return cached.token;
    try {
      let exchange: { outcome: Outcome; answer?: HttpAnswer };
      if (options.serviceAccountKey) {
        const key = parseJson<{ client_email?: string; private_key?: string; token_uri?: string }>(
          options.serviceAccountKey,
        );
        if (!key?.client_email || !key.private_key)
          return permanent("serviceAccountKey is not a service account key JSON (client_email, private_key)");
        const tokenUri = key.token_uri ?? "https://oauth2.googleapis.com/token";
        const assertion = await signJwt(key.private_key, {
          iss: key.client_email,
          scope: SCOPE,
          aud: tokenUri,
          iat: Math.floor(now / 1000),
          exp: Math.floor(now / 1000) + 3600,
        });
        const fields = { grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion };
        exchange = await formApi(http, "")("POST", tokenUri, fields, signal, now);
      } else {
        const url = `${options.metadataUrl.replace(/\/+$/, "")}/computeMetadata/v1/instance/service-accounts/default/token?scopes=${encodeURIComponent(SCOPE)}`;
        exchange = await sendAndClassify(
          http,
          { method: "GET", url, headers: { "metadata-flavor": "Google" }, signal },
          now,
        );
      }
      if (exchange.outcome.kind !== "ok") return exchange.outcome;
      const t = parseJson<{ access_token?: string; expires_in?: number }>(exchange.answer?.body);
      if (!t?.access_token) return { kind: "retry", reason: "token endpoint named no access_token" };
      cached = { token: t.access_token, expiresAt: now + (t.expires_in ?? 3600) * 1000 };
      return cached.token;
    } catch (error) {
      return classifyError(error);
    }
  };
}

/** A JWT signed RS256 with WebCrypto from a PKCS#8 PEM key. */
export async function signJwt(pem: string, claims: Record<string, unknown>): Promise<string> {
  const b64url = (bytes: Uint8Array) =>
    btoa(String.fromCharCode(...bytes))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
  const text = (s: string) => b64url(new TextEncoder().encode(s));
  const der = Uint8Array.from(atob(pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "")), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey("pkcs8", der, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const unsigned = `${text(JSON.stringify({ alg: "RS256", typ: "JWT" }))}.${text(JSON.stringify(claims))}`;
  const signature = new Uint8Array(
    await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, new TextEncoder().encode(unsigned)),
  );
  return `${unsigned}.${b64url(signature)}`;
}
