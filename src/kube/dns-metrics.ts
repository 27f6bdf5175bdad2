import type { Pod } from "../model/kube.ts";
import { readCounters } from "./prometheus-text.ts";

/** The CoreDNS metrics port (spec 4.3). */
export const DNS_METRICS_PORT = 9153;

/** Running totals of one cluster DNS pod: responses, SERVFAIL responses, and forward health-check breaks (every upstream down at once). */
export interface DnsCounters {
  readonly responses: number;
  readonly servfail: number;
  readonly upstreamBroken: number;
}

/** Sums the CoreDNS counters of one exposition. Pure. */
export function dnsCounters(text: string): DnsCounters {
  const families = readCounters(text, ["coredns_dns_responses_total", "coredns_forward_healthcheck_broken_total"]);
  let responses = 0;
  let servfail = 0;
  for (const s of families.get("coredns_dns_responses_total") ?? []) {
    responses += s.value;
    if (s.labels.rcode === "SERVFAIL") servfail += s.value;
  }
  const upstreamBroken = (families.get("coredns_forward_healthcheck_broken_total") ?? []).reduce(
    (n, s) => n + s.value,
    0,
  );
  return { responses, servfail, upstreamBroken };
}

/** The running cluster DNS pods (`k8s-app=kube-dns` in kube-system) with a pod IP. */
export function dnsPods(pods: readonly Pod[]): Pod[] {
  return pods.filter(
    (p) =>
      p.metadata?.namespace === "kube-system" &&
      p.metadata?.labels?.["k8s-app"] === "kube-dns" &&
      p.status?.phase === "Running" &&
      p.status?.podIP,
  );
}

/**
 * Reads `http://<pod IP>:9153/metrics` of every running cluster DNS pod when reachable (spec 4.3), each with
 * `timeoutMs`. Returns the counters by pod uid; a pod that does not answer is left out. Never throws.
 */
export async function readDnsCounters(
  pods: readonly Pod[],
  options: { port?: number; timeoutMs?: number } = {},
): Promise<Map<string, DnsCounters>> {
  const out = new Map<string, DnsCounters>();
  await Promise.all(
    dnsPods(pods).map(async (p) => {
      try {
        const ip = String(p.status?.podIP);
        const host = ip.includes(":") ? `[${ip}]` : ip;
        const response = await fetch(`http://${host}:${options.port ?? DNS_METRICS_PORT}/metrics`, {
          signal: AbortSignal.timeout(options.timeoutMs ?? 2_000),
        });
        if (response.ok) out.set(String(p.metadata.uid ?? p.metadata.name), dnsCounters(await response.text()));
        else await response.body?.cancel();
      } catch {
        // unreachable (network policy, no route): no counters from this pod
      }
    }),
  );
  return out;
}
