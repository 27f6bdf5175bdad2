import type { KubeConnection } from "./connection.ts";
import { cutStart } from "../redact/cut.ts";

/** How much of a container's log mon keeps: the last lines, the last bytes of them (spec 1.6 "bounded"). */
export const LOG_TAIL_LINES = 50;
export const LOG_LIMIT_BYTES = 16_384;
/** The most mon reads of one log to reach its end (a 10 MB line); beyond it the read stops, ending there. */
export const LOG_READ_MAX_BYTES = 16 * 2 ** 20;
/** The longest log line kept, characters: its end, where the message of a long line usually is. */
export const LOG_LINE_MAX = 400;

/**
 * What a read of a container's log gave: its tail as `text`, or why there is none (`unavailable`, one short
 * sentence a message can carry as evidence: "the kubelet no longer has the container", "HTTP 500: …").
 */
export type LogRead = { readonly text: string } | { readonly unavailable: string };

/**
 * Reads the tail of a container's log through `pods/log` (spec 5.5: `get` on pods/log), of the previous
 * (crashed) instance when `previous`: the last LOG_TAIL_LINES lines, of which the last LOG_LIMIT_BYTES bytes are
 * kept while they stream in (issue 30: `limitBytes` would keep the *first* bytes, the start of a 10 MB line,
 * and drop its end). A log that cannot be read (no kubelet, container gone, no permission) is `unavailable`
 * with why — also when the kubelet says so in a body it already answered 200 to (issue 50: once a kubelet has
 * removed a dead container it writes `unable to retrieve container logs for containerd://…` as the log). Never
 * throws.
 */
export async function readContainerLog(
  connection: KubeConnection,
  ref: { namespace: string; pod: string; container: string; previous: boolean },
  signal?: AbortSignal,
): Promise<LogRead> {
  const query = new URLSearchParams({
    container: ref.container,
    tailLines: String(LOG_TAIL_LINES),
    ...(ref.previous ? { previous: "true" } : {}),
  });
  try {
    const response = await connection.request(
      `/api/v1/namespaces/${encodeURIComponent(ref.namespace)}/pods/${encodeURIComponent(ref.pod)}/log?${query}`,
      // As client-go asks: kube-apiserver answers `Accept: text/plain` alone with 406 (issue 40), and a log is
      // served as text whatever is accepted.
      { headers: { accept: "application/json, */*" }, ...(signal ? { signal } : {}) },
    );
    if (!response.ok) return { unavailable: refusal(response.status, await response.text().catch(() => "")) };
    const text = await lastBytes(response, LOG_LIMIT_BYTES, LOG_READ_MAX_BYTES);
    const kubelet = kubeletLogError(text);
    return kubelet ? { unavailable: kubelet } : { text };
  } catch (error) {
    const e = error as { name?: string; message?: string };
    return {
      unavailable:
        e.name === "TimeoutError" || e.name === "AbortError" ? "no answer in time" : (e.message ?? "unreachable"),
    };
  }
}

/**
 * The kubelet's own words when a log it began to serve cannot be read: it answers 200 before it looks for the
 * container, then writes its error as the body. The sentence mon shows for it, or undefined for a real log.
 * The kubelet's messages (pkg/kubelet/kuberuntime): the container is gone from the runtime, or its log file is.
 */
export function kubeletLogError(body: string): string | undefined {
  const line = body.trim();
  if (line.includes("\n")) return undefined;
  if (/^unable to retrieve container logs for [a-z]+:\/\/[0-9a-f]+$/.test(line))
    return "its output is gone: the kubelet no longer has the container";
  if (/^failed to (try resolving symlinks in path|open log file) "[^"]+": /.test(line))
    return "its output is gone: the kubelet no longer has its log file";
  return undefined;
}

/** Why the API server refused a log read: its Status message, or the HTTP status. */
function refusal(status: number, body: string): string {
  let message: string | undefined;
  try {
    message = (JSON.parse(body) as { message?: string }).message;
  } catch {}
  if (status === 403) return "no permission to read pods/log";
  return `HTTP ${status}${message ? `: ${message}` : ""}`;
}

/** The last `keep` bytes of a response body read up to `max` bytes, as text (a cut character dropped). */
async function lastBytes(response: Response, keep: number, max: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  let window = new Uint8Array(0);
  let read = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    read += value.length;
    const joined = new Uint8Array(Math.min(keep, window.length + value.length));
    const fromValue = Math.min(value.length, joined.length);
    joined.set(window.subarray(window.length - (joined.length - fromValue)), 0);
    joined.set(value.subarray(value.length - fromValue), joined.length - fromValue);
    window = joined;
    if (read >= max) {
      await reader.cancel();
      break;
    }
  }
  // The window may start inside a multi-byte character: drop what decodes to U+FFFD at its start.
  return new TextDecoder().decode(window).replace(/^\uFFFD+/, "");
}

const ERROR_LINE = /error|exception|fatal|panic|refused|timeout|denied|no such host|x509|no space left|killed|failed/i;

/**
 * The lines an engineer needs from a log tail (failure-catalogue R11): the last line that looks like an
 * error and up to `context` lines before it, else the last lines. Trailing blank lines are ignored; a line over
 * LOG_LINE_MAX characters keeps its end.
 */
export function lastErrorLines(text: string, context = 2): string[] {
  const lines = text
    .split("\n")
    .map((l) => cutStart(l.replace(/\s+$/, ""), LOG_LINE_MAX))
    .filter((l) => l.length > 0);
  for (let i = lines.length - 1; i >= 0; i--) {
    if (ERROR_LINE.test(lines[i]!)) return lines.slice(Math.max(0, i - context), i + 1);
  }
  return lines.slice(-(context + 1));
}
