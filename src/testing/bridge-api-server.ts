import type { RealKube } from "./real-kube.ts";
import { startTcpProxy } from "./tcp-proxy.ts";

/** The API server as pods on the node's bridge reach it; `close` stops forwarding. */
export interface BridgeApiServer {
  /** The address pods connect to (the bridge's own). */
  readonly ip: string;
  readonly port: number;
  /** A name the API server's certificate carries, to reach it by through `hostAliases` with TLS checked. */
  readonly hostname: string;
  close(): Promise<void>;
}

/**
 * The API server reachable from the real node's pods (../shared/kube/node), as a control plane is from the pods
 * of a cluster without a Service proxy: on this machine it listens on loopback only and the pods' bridge has no
 * route beyond its own subnet, so the API server is forwarded (TCP, TLS untouched) from the bridge's address `ip`
 * on a free port. Pods name it `kubernetes.default.svc` (in the certificate) mapped to `ip` by hostAliases.
 */
export async function startBridgeApiServer(kube: RealKube, ip: string): Promise<BridgeApiServer> {
  const proxy = await startTcpProxy({ host: "127.0.0.1", port: Number(new URL(kube.url).port) }, { host: ip, port: 0 });
  return { ip, port: proxy.port, hostname: "kubernetes.default.svc", close: () => proxy.close() };
}
