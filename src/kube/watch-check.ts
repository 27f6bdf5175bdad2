import type { KubeConnection } from "./connection.ts";
import { classifyFetchError, KubeError } from "./errors.ts";
import { LineSplitter } from "./lines.ts";

/**
 * What a check of a silent watch found (issue 40):
 * - `current`: the API server has nothing after the watch's resourceVersion — the kind is quiet, the watch is not
 *   behind (or the server no longer keeps that resourceVersion, which a live stream does not need);
 * - `behind`: the server has changes after it that the watch did not deliver;
 * - `held`: the check itself got no answer, or no end, within its deadline (a proxy holding every stream, a
 *   server that accepts and never answers);
 * - `unreachable`: the check could not reach the server (refused, reset, TLS): the watch's connection is
 *   half-open to a server that is gone;
 * - `refused`: the server answered the check with an error status (throttled, overloaded): it is there, so the
 *   watch is given the benefit of the doubt until the next check.
 */
export type WatchCheck =
  | { readonly verdict: "current" }
  | { readonly verdict: "behind" }
  | { readonly verdict: "held"; readonly message: string }
  | { readonly verdict: "unreachable"; readonly error: KubeError }
  | { readonly verdict: "refused"; readonly error: KubeError };

/**
 * Asks the API server whether a watch that has been silent is behind it, without trusting bookmarks: the
 * Kubernetes API promises that a watch from resourceVersion R delivers every change after R, and that
 * `timeoutSeconds` ends it, but not that bookmarks arrive at any rhythm — kube-apiserver v1.32 sends none on a
 * kind that has not changed since the watch began. So a second, short watch from the same resourceVersion
 * (`timeoutSeconds=1`) answers the question: the server replays what it has after R at once, then ends the
 * stream. Nothing replayed and a clean end: the kind is quiet and the silent watch is current. A change
 * replayed: the silent watch missed it. No end within `deadlineMs` of real time: the path to the server holds
 * streams. One request of about a second per silent kind per check.
 *
 * `path` is the kind's collection path; `resourceVersion` the last one the silent watch delivered. The deadline
 * is real time (the runtime's timer), as every I/O deadline: a held request hangs in real time. Never throws.
 */
export async function checkWatch(
  connection: KubeConnection,
  path: string,
  resourceVersion: string,
  deadlineMs: number,
  stopped: AbortSignal,
): Promise<WatchCheck> {
  const abort = new AbortController();
  const onStop = () => abort.abort(new DOMException("stopped", "AbortError"));
  stopped.addEventListener("abort", onStop, { once: true });
  let held = false;
  const timer = setTimeout(() => {
    held = true;
    abort.abort(new DOMException("held", "TimeoutError"));
  }, deadlineMs);
  const heldCheck = (): WatchCheck => ({
    verdict: "held",
    message: `watch ${path}: a check from resourceVersion ${resourceVersion} got no complete answer in ${Math.round(deadlineMs / 1000)} s`,
  });
  try {
    const response = await connection.request(
      `${path}?watch=1&resourceVersion=${encodeURIComponent(resourceVersion)}&timeoutSeconds=1`,
      { signal: abort.signal },
    );
    if (!response.ok) {
      const body = await response.text();
      // kube-apiserver answers a resourceVersion it no longer keeps with 410 (or an ERROR event, below).
      if (response.status === 410) return { verdict: "current" };
      return {
        verdict: "refused",
        error: new KubeError("http", `watch check ${path}: HTTP ${response.status} ${body.slice(0, 200)}`),
      };
    }
    // An ERROR event (410 for a resourceVersion the server no longer keeps) says nothing about a live stream.
    let changes = 0;
    const lines = new LineSplitter();
    const reader = response.body?.getReader();
    // The first change replayed answers the question: no need to wait for the stream's end.
    while (changes === 0) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) break;
      lines.push(chunk.value, (line) => {
        const type = (JSON.parse(line) as { type?: string }).type;
        if (type === "ADDED" || type === "MODIFIED" || type === "DELETED") changes++;
      });
    }
    if (changes > 0) {
      abort.abort(new DOMException("answered", "AbortError"));
      return { verdict: "behind" };
    }
    return { verdict: "current" };
  } catch (error) {
    if (held) return heldCheck();
    if (stopped.aborted) return { verdict: "current" };
    const classified = error instanceof KubeError ? error : classifyFetchError(error, path);
    return { verdict: "unreachable", error: classified };
  } finally {
    clearTimeout(timer);
    stopped.removeEventListener("abort", onStop);
  }
}
