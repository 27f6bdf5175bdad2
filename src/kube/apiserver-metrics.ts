import type { KubeConnection } from "./connection.ts";
import { readCounters } from "./prometheus-text.ts";

/** Running totals of the API server's resource requests (`apiserver_request_total`): all, and those answered 5xx. */
export interface ApiServerRequests {
  readonly total: number;
  readonly errors: number;
}

/** Long-running verbs: a WATCH is counted when it ends, whatever happened meanwhile. */
const LONG_RUNNING = new Set(["WATCH", "CONNECT"]);

/**
 * Sums `apiserver_request_total` from the API server's `/metrics` (spec 4.3; `get` on the non-resource URL
 * /metrics), leaving out long-running verbs and the health endpoints (`/readyz`, `/livez`, `/healthz`,
 * whose 500s during start-up are not failed client requests). Pure: `text` is the exposition.
 */
export function apiServerRequests(text: string): ApiServerRequests {
  let total = 0;
  let errors = 0;
  for (const s of readCounters(text, ["apiserver_request_total"]).get("apiserver_request_total") ?? []) {
    if (LONG_RUNNING.has(s.labels.verb ?? "") || (s.labels.subresource ?? "").startsWith("/")) continue;
    total += s.value;
    if ((s.labels.code ?? "").startsWith("5")) errors += s.value;
  }
  return { total, errors };
}

/**
 * Reads the API server's `/metrics` when reachable (spec 4.3). Returns undefined when it cannot be read
 * (forbidden, not served, unreachable, unparsable): mon then has no request error rate, never a guess. Never throws.
 */
export async function readApiServerRequests(
  connection: KubeConnection,
  signal?: AbortSignal,
): Promise<ApiServerRequests | undefined> {
  try {
    const response = await connection.request("/metrics", {
      headers: { accept: "text/plain" },
      ...(signal ? { signal } : {}),
    });
    const text = await response.text();
    if (!response.ok) return undefined;
    return apiServerRequests(text);
  } catch {
    return undefined;
  }
}
