import { createServer, type Server } from "node:https";
import { summaryFor } from "../kubelet.ts";
import { createSimPki } from "../pki.ts";

/** What the stand-in's kubelet endpoint answers from: the containers' logs by `ns/pod/container/previous`. */
export type LogSource = (namespace: string, pod: string, container: string, previous: boolean) => string | undefined;

/** One serving certificate for every node's endpoint (making RSA keys is slow). */
let pki: ReturnType<typeof createSimPki> | undefined;

/** One node's kubelet endpoint on loopback. */
export interface KubeletServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A node's kubelet HTTPS endpoint, as kube-apiserver and mon reach it (issue 40): `GET /containerLogs/<namespace>/
 * <pod>/<container>[?previous=true]` — what `kubectl logs` and mon's log reader get, proxied by the API server —
 * and `GET /stats/summary` (the Summary API, a healthy node's figures). The API server dials the Node's
 * InternalIP and `daemonEndpoints.kubeletEndpoint.Port`; it verifies no kubelet certificate here (no
 * `--kubelet-certificate-authority`), so the certificate is a fresh self-signed one. Nothing is authorized: only
 * loopback reaches it.
 */
export async function startKubeletServer(node: string, logs: LogSource): Promise<KubeletServer> {
  pki ??= createSimPki("kubelet-stand-in");
  const server: Server = createServer({ cert: pki.serverCert, key: pki.serverKey }, (req, res) => {
    const url = new URL(req.url ?? "/", "https://kubelet");
    const logsPath = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && logsPath) {
      const [, namespace, pod, container] = logsPath.map((p) => decodeURIComponent(p ?? ""));
      const text = logs(namespace!, pod!, container!, url.searchParams.get("previous") === "true");
      if (text === undefined) {
        res.writeHead(404, { "content-type": "text/plain" });
        return void res.end(`container "${container}" in pod "${pod}" has no logs`);
      }
      const tail = Number(url.searchParams.get("tailLines") ?? 0);
      const body =
        tail > 0
          ? text
              .split("\n")
              .slice(-tail - 1)
              .join("\n")
          : text;
      res.writeHead(200, { "content-type": "text/plain" });
      return void res.end(body);
    }
    if (req.method === "GET" && url.pathname === "/stats/summary") {
      const body = JSON.stringify(summaryFor(node, Date.now()));
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(body);
    }
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("404 page not found");
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
