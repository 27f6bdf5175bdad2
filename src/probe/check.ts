import { lookup } from "node:dns/promises";
import { connect } from "node:net";
import type { ProbeCheck, ProbeTarget } from "../model/probe.ts";
import type { Clock } from "../runtime/clock.ts";

/**
 * Checks one target once (spec 2.3): `tcp` opens a connection and closes it; `http` sends a GET (redirects not
 * followed) and expects `expectedStatus`, or any 2xx/3xx; `dns` resolves the host. Gives up after `timeoutMs`
 * on the injected clock. Latency is measured on that clock. Never throws: a failure is `ok: false` with a
 * short `error` (`connection refused`, `timeout after 5000 ms`, `status 503, expected 200`, `ENOTFOUND`).
 */
export async function checkTarget(target: ProbeTarget, timeoutMs: number, clock: Clock): Promise<ProbeCheck> {
  const started = clock.now();
  const abort = new AbortController();
  const cancel = clock.setTimer(() => abort.abort(new Error(`timeout after ${timeoutMs} ms`)), timeoutMs);
  try {
    const status = await withAbort(run(target, abort.signal), abort.signal);
    const latencyMs = clock.now() - started;
    if (status === undefined) return { ok: true, latencyMs };
    const ok = target.expectedStatus !== undefined ? status === target.expectedStatus : status >= 200 && status < 400;
    return {
      ok,
      latencyMs,
      status,
      ...(ok
        ? {}
        : {
            error: `status ${status}${target.expectedStatus !== undefined ? `, expected ${target.expectedStatus}` : ""}`,
          }),
    };
  } catch (error) {
    return { ok: false, latencyMs: clock.now() - started, error: describe(error) };
  } finally {
    cancel();
  }
}

// --- internal ---

async function run(target: ProbeTarget, signal: AbortSignal): Promise<number | undefined> {
  switch (target.kind) {
    case "http": {
      const response = await fetch(target.address, {
        method: "GET",
        redirect: "manual",
        signal,
        headers: { "user-agent": "mon-probe" },
      });
      await response.body?.cancel();
      return response.status;
    }
    case "dns":
      await lookup(target.address);
      return undefined;
    case "tcp":
      await tcpConnect(target.address, signal);
      return undefined;
  }
}

function tcpConnect(address: string, signal: AbortSignal): Promise<void> {
  const at = address.lastIndexOf(":");
  const host = address.slice(0, at).replace(/^\[|\]$/g, "");
  const port = Number(address.slice(at + 1));
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const stop = () => socket.destroy();
    signal.addEventListener("abort", stop, { once: true });
    socket.once("connect", () => {
      signal.removeEventListener("abort", stop);
      socket.end();
      socket.destroy();
      resolve();
    });
    socket.once("error", (error) => {
      signal.removeEventListener("abort", stop);
      reject(error);
    });
  });
}

function withAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(signal.aborted ? signal.reason : e);
      },
    );
  });
}

const CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "timed out",
  ENOTFOUND: "name not found",
  EAI_AGAIN: "name lookup failed",
};

function describe(error: unknown): string {
  const e = error as { code?: string; message?: string; cause?: { code?: string } };
  const code = e?.code ?? e?.cause?.code;
  if (code && CODES[code]) return CODES[code]!;
  return (e?.message ?? String(error)).split("\n")[0]!.slice(0, 200);
}
