import { connect, createServer, type Socket } from "node:net";

/** A TCP proxy on loopback in front of one server, that can hold every stream it carries. */
export interface TcpProxy {
  readonly port: number;
  /**
   * `true`: from now on nothing the server sends reaches the client, on every open connection and every new
   * one (the bytes are kept, not dropped) — a proxy that holds streams while their connections stay open.
   * `false`: passes what it kept, and everything after.
   */
  hold(on: boolean): void;
  close(): Promise<void>;
}

/**
 * Starts a TCP proxy on 127.0.0.1 (a free port) to `target` (`host:port`). TLS passes through untouched, so a
 * kubeconfig pointed at the proxy still verifies the API server's certificate (its names include 127.0.0.1).
 * `listen`: another local address and port to listen on.
 */
export async function startTcpProxy(
  target: { host: string; port: number },
  listen: { host: string; port: number } = { host: "127.0.0.1", port: 0 },
): Promise<TcpProxy> {
  let holding = false;
  const pairs = new Set<{ client: Socket; upstream: Socket; kept: Buffer[] }>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream, kept: [] as Buffer[] };
    pairs.add(pair);
    client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("data", (chunk: Buffer) => {
      if (holding) pair.kept.push(chunk);
      else client.write(chunk);
    });
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    // A held connection's end is held too: the client must not learn from a close that the stream is gone.
    upstream.on("close", () => {
      if (!holding) end();
    });
    client.on("close", end);
    client.on("error", end);
    upstream.on("error", () => {
      if (!holding) end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, resolve);
  });
  return {
    port: (server.address() as { port: number }).port,
    hold(on) {
      holding = on;
      if (on) return;
      for (const pair of pairs) {
        for (const chunk of pair.kept) pair.client.write(chunk);
        pair.kept = [];
        if (pair.upstream.destroyed) {
          pairs.delete(pair);
          pair.client.destroy();
        }
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const pair of pairs) {
          pair.client.destroy();
          pair.upstream.destroy();
        }
        pairs.clear();
        server.close(() => resolve());
      }),
  };
}
