import { createServer, type IncomingHttpHeaders } from "node:http";

/** One request a capture server received. */
export interface CapturedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** When it arrived, epoch ms of the real clock (tests against a real control plane time messages with it). */
  readonly receivedAt: number;
  json<T = any>(): T;
}

/** How the capture server answers one request: status, headers, body text. */
export interface ScriptedAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Never answer (a receiver that hangs); the request is recorded, its connection closed by close(). */
  readonly hang?: boolean;
}

/** A local HTTP server standing in for a provider's API in tests; records every request. */
export interface CaptureServer {
  readonly url: string;
  readonly requests: CapturedRequest[];
  /** Answers are taken from this queue first, then from the default answer. */
  queue(...answers: ScriptedAnswer[]): void;
  setDefault(answer: ScriptedAnswer | ((request: CapturedRequest) => ScriptedAnswer)): void;
  /** Resolves once at least `count` requests arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<CapturedRequest[]>;
  close(): Promise<void>;
}

/**
 * Starts a capture server on 127.0.0.1 with a free port; answers 200 `ok` unless told otherwise. `host`: another
 * local address to listen on (the real node's bridge, which its pods reach; real-node.ts).
 */
export async function startCaptureServer(host = "127.0.0.1"): Promise<CaptureServer> {
  const requests: CapturedRequest[] = [];
  const queued: ScriptedAnswer[] = [];
  let fallback: ScriptedAnswer | ((request: CapturedRequest) => ScriptedAnswer) = { status: 200, body: "ok" };
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const captured: CapturedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body,
        receivedAt: Date.now(),
        json: () => JSON.parse(body),
      };
      requests.push(captured);
      const answer = queued.shift() ?? (typeof fallback === "function" ? fallback(captured) : fallback);
      if (answer.hang) {
        for (const w of waiters) w();
        return;
      }
      res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers });
      res.end(answer.body ?? "");
      for (const w of waiters) w();
    });
  });
  // Idle keep-alive connections stay open until close(): a server that closes one just as the client reuses it
  // makes the client retry (mon does, as with any provider), and on a busy machine that race would move a
  // test's messages onto the fake clock's retry back-off. Tests of that retry script the failure instead.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://${host}:${port}`,
    requests,
    queue: (...answers) => void queued.push(...answers),
    setDefault: (answer) => void (fallback = answer),
    waitFor(count, timeoutMs = 20_000) {
      if (requests.length >= count) return Promise.resolve(requests);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`expected ${count} requests, got ${requests.length} after ${timeoutMs} ms`));
        }, timeoutMs);
        const check = () => {
          if (requests.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(requests);
        };
        waiters.add(check);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Polls `condition` every 5 ms of real time until it holds; rejects with `what` after `timeoutMs`. For waiting on network I/O, never on time itself. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
