import type { Node } from "../model/kube.ts";
import type { Logger } from "../runtime/logger.ts";
import type { KubeConnection } from "./connection.ts";

/** Default kubelet port (spec 8) when a Node does not report `daemonEndpoints.kubeletEndpoint.Port`. */
export const KUBELET_PORT = 10250;

/** One round's outcome: the Summary API documents read, by node, and the nodes that failed with why. */
export interface StatsRound {
  readonly summaries: ReadonlyMap<string, unknown>;
  readonly failures: ReadonlyMap<string, string>;
  readonly nodes: number;
}

/**
 * Reads kubelet statistics directly (spec 4.3, 1.2): `GET https://<InternalIP>:<kubelet port>/stats/summary`
 * for every node, at most `concurrency` at a time, each within `timeoutMs`, with the ServiceAccount token and
 * the kubelet serving certificate verified against the cluster CA unless `insecureSkipVerify`
 * (nodes/proxy is never used). Never throws: failures are returned per node.
 */
export async function readKubeletStats(options: {
  connection: KubeConnection;
  nodes: readonly Node[];
  insecureSkipVerify: boolean;
  concurrency?: number;
  timeoutMs?: number;
  logger?: Logger;
}): Promise<StatsRound> {
  const fetchKubelet = options.connection.kubeletFetch(options.insecureSkipVerify);
  const authorization = await options.connection.authorization();
  const summaries = new Map<string, unknown>();
  const failures = new Map<string, string>();
  const queue = [...options.nodes];
  const readOne = async (node: Node) => {
    const name = String(node.metadata?.name ?? "");
    const url = kubeletUrl(node);
    if (!url) return void failures.set(name, "no InternalIP address");
    try {
      const response = await fetchKubelet(url, {
        headers: { accept: "application/json", ...(authorization ? { authorization } : {}) },
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      if (!response.ok) {
        await response.body?.cancel();
        return void failures.set(name, `HTTP ${response.status}`);
      }
      summaries.set(name, await response.json());
    } catch (error) {
      const e = error as { code?: string; name?: string; message?: string };
      failures.set(name, e.name === "TimeoutError" ? "timeout" : (e.code ?? e.message ?? "unreachable"));
    }
  };
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await readOne(next);
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 8) }, worker));
  return { summaries, failures, nodes: options.nodes.length };
}

/** The Summary API URL of a node: its InternalIP (IPv6 in brackets) and kubelet port; undefined without an InternalIP. */
export function kubeletUrl(node: Node): string | undefined {
  const address = (node.status?.addresses ?? []).find((a) => a.type === "InternalIP")?.address;
  if (!address) return undefined;
  const port = Number(node.status?.daemonEndpoints?.kubeletEndpoint?.Port) || KUBELET_PORT;
  return `https://${address.includes(":") ? `[${address}]` : address}:${port}/stats/summary`;
}

/** The health of a round: ok, kubelet_partially_unreachable (some nodes failed) or kubelet_unreachable (all did). */
export function roundHealth(
  round: StatsRound,
): "ok" | "kubelet_partially_unreachable" | "kubelet_unreachable" | "optional_permission_denied" {
  if (round.failures.size === 0) return "ok";
  // Every kubelet refusing mon's token (401/403): nodes/stats is not granted — a permission, not a network.
  if (round.failures.size >= round.nodes && [...round.failures.values()].every((why) => /^HTTP 40[13]$/.test(why)))
    return "optional_permission_denied";
  return round.failures.size >= round.nodes ? "kubelet_unreachable" : "kubelet_partially_unreachable";
}
