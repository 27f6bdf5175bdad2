import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createTlsFetch } from "../runtime/tls-fetch.ts";
import type { Simulator } from "../sim/simulator.ts";

/** A raw HTTPS request to the simulator with its CA and (unless `token` is null) its admin token. */
export async function simRequest(
  sim: Simulator,
  method: string,
  path: string,
  options: { body?: unknown; contentType?: string; token?: string | null; accept?: string } = {},
): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const tlsFetch = createTlsFetch({ ca: sim.pki.caCert });
  const headers: Record<string, string> = { accept: options.accept ?? "application/json" };
  const token = options.token === undefined ? sim.token : options.token;
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers["content-type"] = options.contentType ?? "application/json";
  const response = await tlsFetch(`${sim.server.url}${path}`, {
    method,
    headers,
    body:
      options.body === undefined
        ? undefined
        : typeof options.body === "string"
          ? options.body
          : JSON.stringify(options.body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Reads the watch stream of `path` until `count` events arrived or the server closed it; returns the events. */
export async function readWatch(
  sim: Simulator,
  path: string,
  count: number,
  during?: () => void,
  timeoutMs = 3_000,
): Promise<{ status: number; events: { type: string; object: any }[] }> {
  const tlsFetch = createTlsFetch({ ca: sim.pki.caCert });
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  const response = await tlsFetch(`${sim.server.url}${path}`, {
    headers: { authorization: `Bearer ${sim.token}` },
    signal: abort.signal,
  });
  const events: { type: string; object: any }[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let started = false;
  try {
    while (events.length < count) {
      if (!started) {
        started = true;
        queueMicrotask(() => during?.());
      }
      const { value, done } = await reader.read();
      if (done) break;
      buffered += value;
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) events.push(JSON.parse(line));
    }
  } catch {
    // aborted by the timeout: return what arrived
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return { status: response.status, events };
}

/** The recorded kube-apiserver v1.32 exchanges the repository carries (src/sim/testdata; scripts/sync-fixtures.ts). */
export const FIXTURES = join(import.meta.dirname, "..", "sim", "testdata", "kube-apiserver-v1.32");

/** Reads one fixture file; throws naming the path when the fixtures are not beside the repository. */
export function fixture(path: string): any {
  const full = join(FIXTURES, path);
  if (!existsSync(full)) throw new Error(`fixture ${full} not found`);
  return JSON.parse(readFileSync(full, "utf8"));
}
