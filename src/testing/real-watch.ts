import { connectKube } from "../kube/connection.ts";
import { LineSplitter } from "../kube/lines.ts";

/** One event a raw watch received: its type, object, and the second (since the watch began) it arrived at. */
export interface WatchedEvent {
  readonly type: string;
  readonly at: number;
  readonly object: Record<string, any>;
}

/**
 * Watches `path` on the API server of `kube` as client-go's reflector does (from the list's resourceVersion,
 * bookmarks allowed, `timeoutSeconds` well past `forMs`) for `forMs` of real time, and returns every event with
 * the second it arrived at. Used to record what a real kube-apiserver sends, beside what the simulator sends.
 */
export async function watchFor(kube: { kubeconfigText: string }, path: string, forMs: number): Promise<WatchedEvent[]> {
  const connection = await connectKube({ kubeconfigText: kube.kubeconfigText });
  const list = await connection.getJson<{ metadata: { resourceVersion: string } }>(`${path}?limit=1`);
  const abort = new AbortController();
  const began = Date.now();
  const events: WatchedEvent[] = [];
  const timer = setTimeout(() => abort.abort(), forMs);
  try {
    const response = await connection.request(
      `${path}?watch=1&allowWatchBookmarks=true&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=${Math.ceil(forMs / 1000) + 60}`,
      { signal: abort.signal },
    );
    const reader = response.body!.getReader();
    const lines = new LineSplitter();
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      lines.push(chunk.value, (line) => {
        const event = JSON.parse(line) as { type: string; object: Record<string, any> };
        events.push({ type: event.type, object: event.object, at: (Date.now() - began) / 1000 });
      });
    }
  } catch (error) {
    if (!abort.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
  }
  return events;
}
