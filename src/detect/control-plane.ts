import type { Finding } from "../model/finding.ts";
import type { InventoryView, UsageView } from "../model/inventory.ts";
import { finding, refOf } from "./build.ts";
import { parseTime } from "./evidence.ts";

/** The control plane's leader Leases in kube-system (also shown by /status). */
export const LEADER_LEASES = ["kube-scheduler", "kube-controller-manager"] as const;

/** Whether an object of kube-system belongs to cluster DNS (kube-dns or CoreDNS, by label or name). */
export function isClusterDns(o: {
  metadata?: { namespace?: string; name?: string; labels?: Readonly<Record<string, string>> };
}): boolean {
  return (
    o.metadata?.namespace === "kube-system" &&
    (o.metadata?.labels?.["k8s-app"] === "kube-dns" || o.metadata?.name === "coredns")
  );
}
const DNS_HOLD_MS = 60_000;
const API_HOLD_MS = 60_000;

/**
 * /readyz checks that fail only while a kube-apiserver starts (its post-start hooks, the first informer sync) or
 * stops: a server coming up after a restart reports them for seconds (issue 53). Failing on these alone, it is
 * judged after API_HOLD_MS — told only if it has not become ready by then, and paging at once if so.
 */
const STARTING_CHECKS = /^(poststarthook\/|informer-sync$|shutdown$)/;

/**
 * The control-plane family (spec 1.2; failure-catalogue F1–F3): the API server's failing /readyz checks (page
 * rule after 1 minute; checks that fail only while a server starts, held that minute), cluster DNS with no ready endpoint or no
 * available replica (page rule: a cluster-critical component is down), and the scheduler or controller-manager
 * leader Lease in kube-system not renewed for twice its duration (or without a holder), the API server's 5xx
 * share from its /metrics, and cluster DNS SERVFAIL share and lost upstreams from CoreDNS's port 9153, each
 * over the last usage round. A missing Lease is no finding (managed control planes hide them). Pure.
 */
export function detectControlPlane(inventory: InventoryView, now: number, usage: UsageView = {}): Finding[] {
  const out: Finding[] = [];
  const api = usage.apiServer;
  if (api && api.failing.length > 0) {
    const held = now - api.since >= API_HOLD_MS;
    const starting = api.failing.every((check) => STARTING_CHECKS.test(check));
    out.push(
      finding({
        ...(starting ? { holdMs: API_HOLD_MS } : {}),
        reason: "APIServerUnhealthy",
        object: { kind: "APIServer", name: "kube-apiserver" },
        summary: `the API server reports failing readiness checks: ${api.failing.join(", ")}`,
        evidence: [
          ["failing checks", api.failing.join(", ")],
          ["since", new Date(api.since).toISOString()],
        ],
        since: api.since,
        now,
        ...(held ? { pageRule: "ClusterCriticalDown" } : { recheckAt: api.since + API_HOLD_MS }),
      }),
    );
  }
  for (const name of LEADER_LEASES) {
    const lease = inventory.get("Lease", "kube-system", name);
    if (!lease) continue;
    const renewed = parseTime(lease.spec?.renewTime ?? lease.spec?.acquireTime, 0);
    const duration = (lease.spec?.leaseDurationSeconds ?? 15) * 1000;
    const holder: string | undefined = lease.spec?.holderIdentity || undefined;
    if (holder && now - renewed <= 2 * duration) continue;
    out.push(
      finding({
        reason: "ControlPlaneLeaderLost",
        object: refOf({ ...lease, kind: "Lease" }),
        summary: holder
          ? `${name} has no active leader: lease held by ${holder} was last renewed ${Math.round((now - renewed) / 1000)} s ago (lease duration ${duration / 1000} s)`
          : `${name} has no leader: its lease has no holder`,
        evidence: [
          ["holder", holder ?? "none"],
          ["renewed", lease.spec?.renewTime],
          ["lease duration", `${duration / 1000} s`],
          ["transitions", lease.spec?.leaseTransitions],
        ],
        since: holder ? renewed + 2 * duration : parseTime(lease.metadata?.creationTimestamp, now),
        now,
      }),
    );
  }
  const dns = dnsDown(inventory, now);
  if (dns) out.push(dns);
  out.push(...requestErrors(usage, now), ...dnsErrors(inventory, usage, now));
  return out;
}

/**
 * The API server unreachable from mon (issue 53; docs/leadership.md): every request of the state lock's election
 * refused, unanswered or answered 5xx/429 since `outage.since` (epoch ms), `outage.error` the last; `failing` the
 * /readyz checks the server names when it answers that at all (`etcd` while its storage is down). Opens after the
 * catalogue's minute and pages (ClusterCriticalDown: a cluster-critical component is down). Pure.
 */
export function apiUnreachable(
  outage: { readonly since: number; readonly error: string; readonly failing?: readonly string[] },
  now: number,
): Finding {
  const failing = outage.failing?.length ? outage.failing.join(", ") : undefined;
  return finding({
    reason: "APIServerUnreachable",
    object: { kind: "APIServer", name: "kube-apiserver" },
    summary: failing
      ? `the API server answers but does not serve: its /readyz reports ${failing} failing`
      : `mon cannot reach the API server: ${outage.error}`,
    evidence: [
      ["since", new Date(outage.since).toISOString()],
      ["last error", outage.error],
      ["failing checks", failing],
    ],
    since: outage.since,
    now,
    pageRule: "ClusterCriticalDown",
  });
}

/** Share of failed answers that makes an error rate a finding, and the fewest answers it is judged on. */
export const ERROR_RATE = { share: 0.05, minApiRequests: 100, minDnsResponses: 50 } as const;

// --- internal ---

const percent = (part: number, whole: number) => `${Math.round((part / whole) * 1000) / 10} %`;

/** API server requests answered 5xx in the last usage round (its /metrics), when at least 5 % of 100 or more. */
function requestErrors(usage: UsageView, now: number): Finding[] {
  const r = usage.apiRequests;
  if (!r || r.total < ERROR_RATE.minApiRequests || r.errors / r.total < ERROR_RATE.share) return [];
  return [
    finding({
      reason: "APIServerErrorRate",
      object: { kind: "APIServer", name: "kube-apiserver" },
      summary: `the API server answered ${percent(r.errors, r.total)} of requests with a 5xx in the last ${Math.round(r.seconds)} s (${r.errors} of ${r.total})`,
      evidence: [
        ["5xx answers", r.errors],
        ["requests", r.total],
        ["window", `${Math.round(r.seconds)} s`],
      ],
      since: now - r.seconds * 1000,
      now,
    }),
  ];
}

/** Cluster DNS answering SERVFAIL (at least 5 % of 50 or more responses), or with every upstream down, in the last usage round. */
function dnsErrors(inventory: InventoryView, usage: UsageView, now: number): Finding[] {
  const d = usage.dnsResponses;
  if (!d) return [];
  const deployment = inventory.listIn("Deployment", "kube-system").find(isClusterDns);
  const object = deployment
    ? refOf({ ...deployment, kind: "Deployment" })
    : { kind: "Service", namespace: "kube-system", name: "kube-dns" };
  const window = `${Math.round(d.seconds)} s`;
  const since = now - d.seconds * 1000;
  const out: Finding[] = [];
  if (d.upstreamBroken > 0) {
    out.push(
      finding({
        reason: "ClusterDNSUpstreamDown",
        object,
        summary: `cluster DNS lost every upstream resolver ${d.upstreamBroken} time(s) in the last ${window}: names outside the cluster do not resolve`,
        evidence: [
          ["forward health-check breaks", d.upstreamBroken],
          ["window", window],
        ],
        since,
        now,
      }),
    );
  }
  if (d.responses >= ERROR_RATE.minDnsResponses && d.servfail / d.responses >= ERROR_RATE.share) {
    out.push(
      finding({
        reason: "ClusterDNSErrors",
        object,
        summary: `cluster DNS answered ${percent(d.servfail, d.responses)} of queries with SERVFAIL in the last ${window} (${d.servfail} of ${d.responses})`,
        evidence: [
          ["SERVFAIL", d.servfail],
          ["responses", d.responses],
          ["window", window],
        ],
        since,
        now,
      }),
    );
  }
  return out;
}

function dnsDown(inventory: InventoryView, now: number): Finding | undefined {
  const service = inventory.get("Service", "kube-system", "kube-dns");
  const deployments = inventory.listIn("Deployment", "kube-system").filter(isClusterDns);
  if (!service && deployments.length === 0) return undefined;
  const slices = inventory
    .listIn("EndpointSlice", "kube-system")
    .filter((s) => s.metadata?.labels?.["kubernetes.io/service-name"] === "kube-dns");
  const ready = slices.flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions?.ready !== false).length;
  const available = deployments.reduce((n, d) => n + (d.status?.availableReplicas ?? 0), 0);
  const noEndpoints = Boolean(service) && inventory.watches("EndpointSlice") && ready === 0;
  const noReplicas = deployments.length > 0 && available === 0;
  if (!noEndpoints && !noReplicas) return undefined;
  const deployment = deployments[0];
  const since = Math.max(
    ...deployments.map((d) =>
      parseTime((d.status?.conditions ?? []).find((c) => c.type === "Available")?.lastTransitionTime, now),
    ),
    now - DNS_HOLD_MS * 10,
  );
  const held = now - since >= DNS_HOLD_MS;
  return finding({
    reason: "ClusterDNSUnavailable",
    object: deployment
      ? refOf({ ...deployment, kind: "Deployment" })
      : { kind: "Service", namespace: "kube-system", name: "kube-dns" },
    summary: `cluster DNS is down: ${noEndpoints ? "kube-system/kube-dns has no ready endpoint" : ""}${noEndpoints && noReplicas ? "; " : ""}${noReplicas ? `${deployment?.metadata?.name ?? "the DNS deployment"} has no available replica` : ""}`,
    evidence: [
      ["ready endpoints", service ? ready : undefined],
      ["available replicas", deployments.length ? available : undefined],
    ],
    since,
    now,
    ...(held ? { pageRule: "ClusterCriticalDown" } : { recheckAt: since + DNS_HOLD_MS }),
  });
}
