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
  /** The address each node's kubelet last answered on, by node name: tried first, kept up to date. */
  answeredOn?: Map<string, string>;
}): Promise<StatsRound> {
  const fetchKubelet = options.connection.kubeletFetch(options.insecureSkipVerify);
  const authorization = await options.connection.authorization();
  const summaries = new Map<string, unknown>();
  const failures = new Map<string, string>();
  const queue = [...options.nodes];
  const readOne = async (node: Node) => {
    const name = String(node.metadata?.name ?? "");
    const known = options.answeredOn?.get(name);
    const urls = kubeletUrls(node).sort((a, b) => Number(b === known) - Number(a === known));
    if (urls.length === 0) return void failures.set(name, "no InternalIP or Hostname address");
    for (const url of urls) {
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
        failures.delete(name);
        options.answeredOn?.set(name, url);
        return;
      } catch (error) {
        const e = error as { code?: string; name?: string; message?: string };
        failures.set(name, e.name === "TimeoutError" ? "timeout" : (e.code ?? e.message ?? "unreachable"));
        // Only an address nothing listens on is worth the next one; a kubelet that answered (TLS, a timeout) has spoken.
        if (!UNREACHABLE.has(e.code ?? "")) return;
      }
    }
  };
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await readOne(next);
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 8) }, worker));
  return { summaries, failures, nodes: options.nodes.length };
}

/** Connection errors after which the node's next address is tried: nothing answered on this one. */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ConnectionRefused",
]);

/**
 * The Summary API URLs of a node, in the order tried: its InternalIP (IPv6 in brackets), then its Hostname (where
 * kube-apiserver itself reaches a kubelet first, issue 50: a kubelet that listens on loopback only), with its
 * kubelet port; none without either address.
 */
export function kubeletUrls(node: Node): string[] {
  const port = Number(node.status?.daemonEndpoints?.kubeletEndpoint?.Port) || KUBELET_PORT;
  const addresses = ["InternalIP", "Hostname"]
    .map((type) => (node.status?.addresses ?? []).find((a) => a.type === type)?.address)
    .filter((a): a is string => Boolean(a));
  return [...new Set(addresses)].map((a) => `https://${a.includes(":") ? `[${a}]` : a}:${port}/stats/summary`);
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
