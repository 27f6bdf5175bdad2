import { permanent } from "./outcome.ts";
import { readFileSync } from "node:fs";
import { AwsClient } from "aws4fetch";
import * as v from "valibot";
import type { Outcome } from "../../model/dispatch.ts";
import type { HttpClient } from "../../outbound/client.ts";
import { classifyError, classifyStatus, parseJson } from "./http.ts";

/** AWS credentials: static keys, or temporary ones with their expiry (epoch ms). */
interface Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiresAt?: number;
}

/** The options every AWS provider has (`sns`, `eventBridge`): region, optional static keys, endpoint override. */
export const AWS_OPTIONS = {
  region: v.pipe(
    v.string(),
    v.regex(/^[a-z]{2}(-[a-z]+)+-\d$/, "must be an AWS region such as eu-west-1"),
    v.description("Region."),
  ),
  accessKeyId: v.optional(
    v.pipe(v.string(), v.description("Access key id; without keys, IRSA (web identity) is used.")),
  ),
  secretAccessKey: v.optional(v.pipe(v.string(), v.description("Secret access key (a credential: ${file:/path})."))),
  endpoint: v.optional(v.pipe(v.string(), v.url(), v.description("Endpoint override (a VPC endpoint)."))),
};

/** The AWS settings shared by `sns` and `eventBridge`. */
export interface AwsSettings {
  readonly region: string;
  readonly accessKeyId?: string;
  readonly secretAccessKey?: string;
  /** Endpoint override (a VPC endpoint, or a test server). */
  readonly endpoint?: string;
}

/**
 * Signs and sends AWS API calls with SigV4 through `aws4fetch` (providers.md 5 "AWS SigV4 client, IRSA
 * first"). Credentials: the configured keys; else IRSA / EKS web identity (`AWS_ROLE_ARN` +
 * `AWS_WEB_IDENTITY_TOKEN_FILE`, exchanged at STS `AssumeRoleWithWebIdentity` and renewed 5 minutes before
 * they expire). Requests go through mon's outbound client (proxy, CA bundle).
 */
export function awsCaller(
  settings: AwsSettings,
  service: string,
  http: HttpClient,
  env: Readonly<Record<string, string | undefined>> = process.env,
) {
  let cached: Credentials | undefined =
    settings.accessKeyId && settings.secretAccessKey
      ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
      : undefined;
  const endpoint = (settings.endpoint ?? `https://${service}.${settings.region}.amazonaws.com`).replace(/\/+$/, "");

  const credentials = async (signal: AbortSignal, now: number): Promise<Credentials | Outcome> => {
    if (cached && (cached.expiresAt === undefined || cached.expiresAt - 5 * 60_000 > now)) return cached;
    const role = env.AWS_ROLE_ARN;
    const tokenFile = env.AWS_WEB_IDENTITY_TOKEN_FILE;
    if (!role || !tokenFile)
      return permanent(
        "no AWS credentials: set accessKeyId/secretAccessKey, or run with IRSA (AWS_ROLE_ARN, AWS_WEB_IDENTITY_TOKEN_FILE)",
        "unauthorized",
      );
    let token: string;
    try {
      token = readFileSync(tokenFile, "utf8").trim();
    } catch (error) {
      return { kind: "retry", reason: `web identity token unreadable: ${(error as Error).message}` };
    }
    const sts = env.AWS_STS_ENDPOINT ?? `https://sts.${settings.region}.amazonaws.com`;
    const query = new URLSearchParams({
      Action: "AssumeRoleWithWebIdentity",
      Version: "2011-06-15",
      RoleArn: role,
      RoleSessionName: "mon",
      WebIdentityToken: token,
    });
    try {
      const answer = await http.request({
        method: "POST",
        url: sts,
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: query.toString(),
        signal,
      });
      const outcome = classifyStatus(answer, now);
      if (outcome.kind !== "ok") return outcome;
      const c = parseJson<{
        AssumeRoleWithWebIdentityResponse?: {
          AssumeRoleWithWebIdentityResult?: {
            Credentials?: {
              AccessKeyId: string;
              SecretAccessKey: string;
              SessionToken: string;
              Expiration: number | string;
            };
          };
        };
      }>(answer.body)?.AssumeRoleWithWebIdentityResponse?.AssumeRoleWithWebIdentityResult?.Credentials;
      if (!c) return { kind: "retry", reason: "sts_unparseable_answer" };
      const expiration = typeof c.Expiration === "number" ? c.Expiration * 1000 : Date.parse(c.Expiration);
      cached = {
        accessKeyId: c.AccessKeyId,
        secretAccessKey: c.SecretAccessKey,
        sessionToken: c.SessionToken,
        expiresAt: expiration,
      };
      return cached;
    } catch (error) {
      return classifyError(error);
    }
  };

  /** One signed call: `headers` and `body` as the API wants them; returns the outcome and the answer body. */
  return async (
    headers: Record<string, string>,
    body: string,
    signal: AbortSignal,
    now: number,
  ): Promise<{ outcome: Outcome; body?: string }> => {
    const creds = await credentials(signal, now);
    if ("kind" in creds) return { outcome: creds };
    const client = new AwsClient({
      accessKeyId: creds.accessKeyId,
      secretAccessKey: creds.secretAccessKey,
      ...(creds.sessionToken ? { sessionToken: creds.sessionToken } : {}),
      service,
      region: settings.region,
    });
    const signed = await client.sign(`${endpoint}/`, { method: "POST", headers, body });
    try {
      const answer = await http.request({
        method: "POST",
        url: signed.url,
        headers: Object.fromEntries(signed.headers.entries()),
        body,
        signal,
      });
      return { outcome: classifyStatus(answer, now), body: answer.body };
    } catch (error) {
      return { outcome: classifyError(error) };
    }
  };
}
