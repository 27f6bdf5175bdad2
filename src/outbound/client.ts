import { createFetch } from "ofetch";
import { createTlsFetch } from "../runtime/tls-fetch.ts";

/** A sent request's answer, body read as text. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

/** One HTTP request. `timeoutMs` defaults to 10 s. */
export interface HttpRequest {
  readonly method?: "GET" | "POST" | "PUT" | "PATCH";
  readonly url: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

/** The outbound HTTP client (providers, license, telemetry, heartbeat): one attempt, explicit timeout, no retry (STYLE.md 3). */
export interface HttpClient {
  /** Sends once. Resolves with any HTTP status; rejects only on network failure, timeout or abort. */
  request(request: HttpRequest): Promise<HttpAnswer>;
}

/** Settings of the outbound client (spec 2.1 `app.proxyURL`, `app.caBundlePath`, `app.insecureSkipTLSVerify`). */
export interface OutboundOptions {
  readonly userAgent?: string;
  /** Proxy URL (credentials allowed; they come from a `${file:}` reference). */
  readonly proxyUrl?: string;
  /** PEM CA bundle trusted for HTTPS, in addition to nothing else: it replaces the system roots. */
  readonly caBundle?: string;
  readonly insecureSkipTLSVerify?: boolean;
}

/**
 * Creates the one outbound HTTP client every external call uses: ofetch with `retry: 0`, over the runtime's
 * fetch with the configured proxy and TLS settings (runtime/tls-fetch.ts).
 */
export function createOutboundClient(options: OutboundOptions = {}): HttpClient {
  const configured = Boolean(options.proxyUrl || options.caBundle || options.insecureSkipTLSVerify);
  const transport = configured
    ? createTlsFetch({
        ...(options.caBundle ? { ca: options.caBundle } : {}),
        insecureSkipVerify: options.insecureSkipTLSVerify,
        ...(options.proxyUrl ? { proxy: options.proxyUrl } : {}),
      })
    : undefined;
  const $fetch = transport ? createFetch({ fetch: transport as typeof fetch }) : createFetch();
  return {
    async request(request) {
      const response = await $fetch.raw(request.url, {
        method: request.method ?? "POST",
        headers: { "user-agent": options.userAgent ?? "mon", ...request.headers },
        body: request.body,
        // One deadline for the whole exchange, headers and body: ofetch drops its own `timeout` when a
        // `signal` is given, so the deadline is a signal of its own, combined with the caller's.
        signal: request.signal
          ? AbortSignal.any([request.signal, AbortSignal.timeout(request.timeoutMs ?? 10_000)])
          : AbortSignal.timeout(request.timeoutMs ?? 10_000),
        retry: 0,
        ignoreResponseError: true,
        responseType: "text",
      });
      return { status: response.status, headers: response.headers, body: String(response._data ?? "") };
    },
  };
}
