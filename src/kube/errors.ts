/** Why a request to the Kubernetes API failed; a closed list used in health reasons and logs. */
export type KubeFailure =
  | "kubeconfig"
  | "tls"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "gone"
  | "network"
  | "timeout"
  | "canceled"
  | "rate_limited"
  | "unavailable"
  | "http";

/** A failed Kubernetes API request with a message an engineer can act on. */
export class KubeError extends Error {
  override readonly name = "KubeError";
  constructor(
    readonly failure: KubeFailure,
    message: string,
    readonly status?: number,
    /** The server's `Retry-After`, ms, when it sent one (throttling, 429 or 503). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS|DEPTH_ZERO|HOSTNAME|ALTNAME|SSL|TLS/i;

/** Classifies a thrown fetch error for `server`; TLS errors name the kubeconfig setting to check. */
export function classifyFetchError(error: unknown, server: string): KubeError {
  if (error instanceof KubeError) return error;
  const e = error as { code?: string; name?: string; message?: string };
  const code = e.code ?? "";
  if (e.name === "TimeoutError") return new KubeError("timeout", `request to ${server} timed out`);
  if (e.name === "AbortError") return new KubeError("canceled", `request to ${server} was canceled`);
  if (TLS_CODES.test(code) || /certificate|tls|ssl/i.test(e.message ?? "")) {
    return new KubeError(
      "tls",
      `TLS verification of ${server} failed (${code || e.message}): the server's certificate is not trusted by the CA of the kubeconfig (certificate-authority / certificate-authority-data) or names another host`,
    );
  }
  return new KubeError("network", `cannot reach ${server} (${code || e.message || "network error"})`);
}

/** The failure an HTTP status of the API server names by itself. */
const BY_STATUS: Readonly<Record<number, KubeFailure>> = {
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  410: "gone",
  429: "rate_limited",
  503: "unavailable",
};

/**
 * Classifies a non-2xx answer of the API server, using its `Status` message when it sent one. kube-apiserver
 * answers a call that ran out of its deadline with 504 (Status reason `Timeout`, or `context deadline exceeded`
 * from etcd) and a call whose context was canceled (an etcd request dropped) with 500 `context canceled`.
 */
export function classifyStatus(status: number, body: string, what: string, retryAfter?: string | null): KubeError {
  let message = body.slice(0, 300);
  let reason = "";
  try {
    const parsed = JSON.parse(body) as { message?: string; reason?: string };
    if (parsed.message) message = parsed.message;
    if (typeof parsed.reason === "string") reason = parsed.reason;
  } catch {
    // a plain-text body is used as is
  }
  const failure: KubeFailure =
    status === 504 || reason === "Timeout" || /context deadline exceeded/i.test(message)
      ? "timeout"
      : /context canceled|code = Canceled/i.test(message)
        ? "canceled"
        : (BY_STATUS[status] ?? "http");
  const seconds = retryAfter ? Number(retryAfter) : Number.NaN;
  return new KubeError(
    failure,
    `${what}: ${status} ${message}`.trim(),
    status,
    Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined,
  );
}

/**
 * The health reason (spec 7.3) of a failed call to the API server: a rejected credential (a wrong or expired
 * token, 401) is `source_configuration_failed`; a refusal (403) `permission_denied`; throttling (429)
 * `rate_limited`; unavailable (503) or not reached at all (refused, reset, no route: kube-apiserver down, issue 53)
 * `api_unavailable`; no answer in time `timeout`; a call the API server or the runtime canceled `canceled`;
 * anything else `fallback`.
 */
export function healthReasonOf(error: unknown, fallback: string): string {
  if (!(error instanceof KubeError)) return fallback;
  switch (error.failure) {
    case "unauthorized":
    case "kubeconfig":
    case "tls":
      return "source_configuration_failed";
    case "forbidden":
      return "permission_denied";
    case "rate_limited":
      return "rate_limited";
    case "timeout":
      return "timeout";
    case "canceled":
      return "canceled";
    case "unavailable":
    case "network":
      return "api_unavailable";
    default:
      return fallback;
  }
}
