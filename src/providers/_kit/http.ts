import { permanent } from "./outcome.ts";
import { FetchError } from "ofetch";
import type { HttpAnswer, HttpClient, HttpRequest } from "../../outbound/client.ts";
import type { Outcome } from "../../model/dispatch.ts";

/**
 * Classifies an HTTP answer (providers.md 1.4): 2xx ok; 429 rate limited and 503 retryable, both honouring
 * Retry-After (seconds or HTTP date); other 5xx and 408 retryable; every other 4xx permanent.
 */
export function classifyStatus(answer: HttpAnswer, now: number): Outcome {
  const { status } = answer;
  if (status >= 200 && status < 300) return { kind: "ok" };
  const afterMs = retryAfterMs(answer.headers.get("retry-after"), now);
  if (status === 429) return afterMs === undefined ? { kind: "rateLimited" } : { kind: "rateLimited", afterMs };
  if (status >= 500 || status === 408) {
    const reason = `http_${status}`;
    return afterMs === undefined ? { kind: "retry", reason } : { kind: "retry", reason, afterMs };
  }
  return permanent(
    `http_${status}${answer.body ? `: ${answer.body.slice(0, 200)}` : ""}`,
    status === 401 || status === 403 ? "unauthorized" : status === 413 ? "too_large" : undefined,
  );
}

/**
 * Turns a thrown request error into an outcome: network failures and timeouts are retryable. A network failure
 * names the host and the system's error code (`network: hooks.example.com ECONNREFUSED`), so the log says
 * where and why; never the path or query, which may carry a credential.
 */
export function classifyError(error: unknown): Outcome {
  if (error instanceof FetchError && error.response) {
    return { kind: "retry", reason: `http_${error.response.status}` };
  }
  const name = (error as { name?: string })?.name;
  const cause = (error as { cause?: { code?: unknown; name?: string } })?.cause;
  // The request's deadline (ofetch wraps the abort in a FetchError whose cause is the TimeoutError).
  if ([name, cause?.name].some((n) => n === "AbortError" || n === "TimeoutError"))
    return { kind: "retry", reason: "timeout" };
  const code = (error as { code?: unknown })?.code ?? cause?.code;
  const request = error instanceof FetchError ? error.request : undefined;
  const url = typeof request === "string" ? request : request instanceof Request ? request.url : undefined;
  let host: string | undefined;
  try {
    host = url ? new URL(url).host : undefined;
  } catch {
    host = undefined;
  }
  const where = [host, typeof code === "string" && /^[A-Z0-9_]+$/.test(code) ? code : undefined].filter(Boolean);
  return { kind: "retry", reason: where.length ? `network: ${where.join(" ")}` : "network" };
}

/**
 * Parses Retry-After (RFC 9110: delta seconds, or an HTTP date such as `Wed, 21 Oct 2026 07:28:00 GMT`) into
 * milliseconds from `now`. Undefined when absent, invalid (`-1`, which `Date.parse` would read as a year),
 * zero or in the past: the documented backoff applies then, never no wait at all.
 */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) {
    const ms = Math.round(Number(trimmed) * 1000);
    return ms > 0 ? ms : undefined;
  }
  if (!/^[A-Za-z]{3},? \d{1,2}[ -][A-Za-z]{3}[ -]\d{2,4} \d{2}:\d{2}:\d{2} GMT$/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) || date <= now ? undefined : date - now;
}

/** Sends and classifies in one step; the common case for providers whose API speaks plain HTTP status codes. */
export async function sendAndClassify(
  http: HttpClient,
  request: HttpRequest,
  now: number,
): Promise<{ outcome: Outcome; answer?: HttpAnswer }> {
  try {
    const answer = await http.request(request);
    return { outcome: classifyStatus(answer, now), answer };
  } catch (error) {
    return { outcome: classifyError(error) };
  }
}

/** Cuts text to `max` characters, marking the cut visibly (providers.md 1.4: never send an invalid payload). */
export function truncate(text: string, max: number, marker = "… (truncated)"): string {
  if (text.length <= max) return text;
  return text.slice(0, Math.max(0, max - marker.length)) + marker;
}

/**
 * For vendors that answer HTTP 200 with an error code in the body (providers.md 1.4: Feishu `code`, DingTalk
 * and WeCom `errcode`): the HTTP outcome first, then `code` from the parsed body — `0` (or absent) is ok, a
 * code in `rateLimited` waits, any other is permanent and quoted with `message`.
 */
export function classifyBodyCode(
  outcome: Outcome,
  body: string | undefined,
  read: (json: Record<string, unknown>) => { code?: unknown; message?: unknown },
  rateLimited: readonly number[],
): Outcome {
  if (outcome.kind !== "ok" || !body) return outcome;
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body);
  } catch {
    return outcome;
  }
  const { code, message } = read(json);
  if (code === undefined || code === 0) return outcome;
  if (typeof code === "number" && rateLimited.includes(code)) return { kind: "rateLimited" };
  return permanent(`error ${String(code)}: ${String(message ?? "").slice(0, 200)}`);
}

/** Parses a JSON answer body; undefined when it is not JSON. */
export function parseJson<T>(body: string | undefined): T | undefined {
  try {
    return JSON.parse(body ?? "") as T;
  } catch {
    return undefined;
  }
}

/**
 * A JSON REST client for one API base (`""` for full URLs): `call(method, path, body?)` sends `body` as JSON
 * (`contentType` when the vendor wants another JSON type, as JSON Patch) with `headers` (which carry the
 * authorization) and classifies the answer (providers.md 1.4). One attempt per call; every provider that talks
 * JSON to a REST API uses it (issue 31.6).
 */
export function jsonApi(http: HttpClient, base: string, headers: Record<string, string>) {
  return (
    method: "GET" | "POST" | "PUT" | "PATCH",
    path: string,
    body: unknown,
    signal: AbortSignal,
    now: number,
    contentType = "application/json",
  ) =>
    sendAndClassify(
      http,
      {
        method,
        url: `${base}${path}`,
        headers: { "content-type": contentType, ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal,
      },
      now,
    );
}

/**
 * A form client for one API base (`""` for full URLs): `call(method, path, fields)` sends `fields` as
 * `application/x-www-form-urlencoded` with `headers` and classifies the answer (providers.md 1.4). One attempt
 * per call; every provider that posts forms (Pushover, Twilio, Zulip) uses it.
 */
export function formApi(http: HttpClient, base: string, headers: Record<string, string> = {}) {
  return (method: "POST" | "PATCH", path: string, fields: Record<string, string>, signal: AbortSignal, now: number) =>
    sendAndClassify(
      http,
      {
        method,
        url: `${base}${path}`,
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams(fields).toString(),
        signal,
      },
      now,
    );
}

/**
 * One JSON POST whose answer the vendor's own body semantics decide (Slack's `ok:false`, Telegram's
 * `error_code`, GraphQL `errors`): `read` gets the answer; a network failure is classified as usual
 * (classifyError). `headers` may replace the content type.
 */
export async function exchangeJson<R extends { outcome: Outcome }>(
  http: HttpClient,
  request: { url: string; headers?: Record<string, string>; body: unknown; signal: AbortSignal },
  read: (answer: HttpAnswer) => R,
): Promise<R | { outcome: Outcome }> {
  let answer: HttpAnswer;
  try {
    answer = await http.request({
      url: request.url,
      headers: { "content-type": "application/json", ...request.headers },
      body: JSON.stringify(request.body),
      signal: request.signal,
    });
  } catch (error) {
    return { outcome: classifyError(error) };
  }
  return read(answer);
}

/**
 * Cuts text to at most `maxBytes` of UTF-8, at a character boundary, marking the cut visibly: for vendors that
 * cap a payload in bytes rather than characters (Feishu, WeCom, Webex, ntfy).
 */
export function truncateBytes(text: string, maxBytes: number, marker = "… (truncated)"): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return text;
  const room = Math.max(0, maxBytes - new TextEncoder().encode(marker).length);
  return new TextDecoder().decode(bytes.slice(0, room)).replace(/\uFFFD+$/, "") + marker;
}

/** The id a vendor's JSON answer names in `field` (a string, or a number as a string); undefined otherwise. */
export function idFrom(body: string | undefined, field = "id"): string | undefined {
  const id = parseJson<Record<string, unknown>>(body)?.[field];
  return typeof id === "string" ? id : typeof id === "number" ? String(id) : undefined;
}

/**
 * A rate limit whose wait the vendor gives in the JSON body rather than a Retry-After header (Discord
 * `retry_after` seconds, Matrix `retry_after_ms`): `field` read and scaled by `unitMs`. Other outcomes, and
 * rate limits that already know their wait, pass unchanged.
 */
export function withBodyRetryAfter(outcome: Outcome, body: string | undefined, field: string, unitMs: number): Outcome {
  if (outcome.kind !== "rateLimited" || outcome.afterMs !== undefined) return outcome;
  const after = parseJson<Record<string, unknown>>(body)?.[field];
  return typeof after === "number" ? { kind: "rateLimited", afterMs: Math.ceil(after * unitMs) } : outcome;
}
