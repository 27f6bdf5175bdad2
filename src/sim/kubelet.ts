import { createServer } from "node:https";
import type { SimAuthorizer } from "./authz.ts";
import type { SimPki } from "./pki.ts";

/** A running fake kubelet. */
export interface FakeKubelet {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A fake kubelet for one node (ARCHITECTURE.md "A fake kubelet (/stats/summary on loopback)"): HTTPS on
 * 127.0.0.1 with a serving certificate from the simulator's CA, bearer tokens checked like the API server,
 * `GET /stats/summary` answering `summary()` in the kubelet Summary API shape.
 */
export async function startFakeKubelet(options: {
  pki: SimPki;
  authorizer: SimAuthorizer;
  summary: () => unknown;
}): Promise<FakeKubelet> {
  const server = createServer({ cert: options.pki.serverCert, key: options.pki.serverKey }, (req, res) => {
    const token = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1];
    const user = token ? options.authorizer.user(token.trim()) : undefined;
    if (!user) {
      res.writeHead(401, { "content-type": "text/plain" });
      return void res.end("Unauthorized");
    }
    // As a kubelet with webhook authorization: the caller needs `get` on nodes/stats.
    if (!options.authorizer.allowed(user, { verb: "get", group: "", resource: "nodes/stats" })) {
      res.writeHead(403, { "content-type": "text/plain" });
      return void res.end(`Forbidden (user=${user.name}, verb=get, resource=nodes, subresource=stats)`);
    }
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/stats/summary") {
      res.writeHead(404, { "content-type": "text/plain" });
      return void res.end("404 page not found");
    }
    const body = JSON.stringify(options.summary());
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A Summary API document for a node with one pod volume (`usedBytes` of `capacityBytes`). */
export function summaryFor(
  node: string,
  now: number,
  volume?: { namespace: string; pod: string; name: string; usedBytes: number; capacityBytes: number },
): unknown {
  const time = new Date(now).toISOString();
  return {
    node: {
      nodeName: node,
      startTime: time,
      cpu: { time, usageNanoCores: 250_000_000, usageCoreNanoSeconds: 1e12 },
      memory: { time, workingSetBytes: 2 * 2 ** 30, availableBytes: 6 * 2 ** 30 },
      fs: {
        time,
        availableBytes: 40 * 2 ** 30,
        capacityBytes: 100 * 2 ** 30,
        usedBytes: 60 * 2 ** 30,
        inodesFree: 5e6,
        inodes: 6e6,
        inodesUsed: 1e6,
      },
    },
    pods: volume
      ? [
          {
            podRef: { name: volume.pod, namespace: volume.namespace, uid: "" },
            startTime: time,
            volume: [
              {
                time,
                name: volume.name,
                availableBytes: volume.capacityBytes - volume.usedBytes,
                capacityBytes: volume.capacityBytes,
                usedBytes: volume.usedBytes,
                inodesFree: 1e5,
                inodes: 2e5,
                inodesUsed: 1e5,
                pvcRef: { name: volume.name, namespace: volume.namespace },
              },
            ],
          },
        ]
      : [],
  };
}
