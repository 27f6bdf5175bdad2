import type { KubeConnection } from "./connection.ts";

/** How much of a container's log mon reads: the last lines, bounded in bytes (spec 1.6 "bounded"). */
export const LOG_TAIL_LINES = 50;
export const LOG_LIMIT_BYTES = 16_384;

/**
 * Reads the tail of a container's log through `pods/log` (spec 5.5: `get` on pods/log), of the previous
 * (crashed) instance when `previous`. Returns undefined when the log cannot be read (no kubelet, container
 * gone, no permission); never throws.
 */
export async function readContainerLog(
  connection: KubeConnection,
  ref: { namespace: string; pod: string; container: string; previous: boolean },
  signal?: AbortSignal,
): Promise<string | undefined> {
  const query = new URLSearchParams({
    container: ref.container,
    tailLines: String(LOG_TAIL_LINES),
    limitBytes: String(LOG_LIMIT_BYTES),
    ...(ref.previous ? { previous: "true" } : {}),
  });
  try {
    const response = await connection.request(
      `/api/v1/namespaces/${encodeURIComponent(ref.namespace)}/pods/${encodeURIComponent(ref.pod)}/log?${query}`,
      { headers: { accept: "text/plain" }, ...(signal ? { signal } : {}) },
    );
    if (!response.ok) {
      await response.body?.cancel();
      return undefined;
    }
    return await response.text();
  } catch {
    return undefined;
  }
}

const ERROR_LINE = /error|exception|fatal|panic|refused|timeout|denied|no such host|x509|no space left|killed|failed/i;

/**
 * The lines an engineer needs from a log tail (failure-catalogue R11): the last line that looks like an
 * error and up to `context` lines before it, else the last lines. Trailing blank lines are ignored.
 */
export function lastErrorLines(text: string, context = 2): string[] {
  const lines = text
    .split("\n")
    .map((l) => l.replace(/\s+$/, ""))
    .filter((l) => l.length > 0);
  for (let i = lines.length - 1; i >= 0; i--) {
    if (ERROR_LINE.test(lines[i]!)) return lines.slice(Math.max(0, i - context), i + 1);
  }
  return lines.slice(-(context + 1));
}
