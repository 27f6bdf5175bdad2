import type { ServerResponse } from "node:http";
import { sendJson } from "./http-io.ts";
import { failure } from "./status.ts";

/** A failure answered to every request for one resource (simulator `failResource`). */
export interface InjectedFailure {
  /** 0: the request is accepted and never answered, not even with headers (a hung connection). */
  readonly status: number;
  /** The Status message; kube-apiserver's own wording for the status when absent. */
  readonly message?: string | undefined;
  /** Seconds sent as `Retry-After` (kube-apiserver's priority and fairness answers 429 with it). */
  readonly retryAfterSeconds?: number | undefined;
}

/** Answers `injected`, or holds the request without a word when its status is 0 (closed when the server stops). */
export function answerInjected(
  res: ServerResponse,
  injected: InjectedFailure,
  ctx: { streams: Set<ServerResponse> },
): void {
  if (injected.status === 0) {
    ctx.streams.add(res);
    res.on("close", () => ctx.streams.delete(res));
    return;
  }
  if (injected.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(injected.retryAfterSeconds));
  sendJson(res, injected.status, injectedStatus(injected).body);
}

/** The Status kube-apiserver answers for `injected`: 504 is its request timeout, 503 unavailable. */
function injectedStatus(injected: InjectedFailure) {
  const { status } = injected;
  if (status === 504)
    return failure(504, "Timeout", injected.message ?? "Timeout: request did not complete within the allotted timeout");
  const reason = status === 503 ? "ServiceUnavailable" : status === 429 ? "TooManyRequests" : "InternalError";
  return failure(status, reason, injected.message ?? `injected failure ${status}`);
}
