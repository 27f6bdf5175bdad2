import type { Edition } from "../model/edition.ts";
import type { Incident } from "../model/incident.ts";
import type { InventoryView, UsageView } from "../model/inventory.ts";
import type { Node } from "../model/kube.ts";
import { isClusterDns, LEADER_LEASES } from "../detect/control-plane.ts";
import { readyCondition } from "../detect/nodes.ts";
import { refLabel } from "../model/object-ref.ts";

/** Nodes without this label are reported under the zone `none`. */
const ZONE_LABEL = "topology.kubernetes.io/zone";

/** What /status is built from (gathered by the daemon; everything here is already in memory). */
export interface StatusInput {
  /** Epoch ms. */
  readonly now: number;
  readonly cluster: string;
  readonly version: string;
  readonly edition: Edition;
  /** Whether this replica leads; a standby has no incidents to show. */
  readonly leading: boolean;
  /** The open incidents that were told (announced, or listed in a summary or digest). */
  readonly incidents: readonly (Incident & { readonly ack?: unknown })[];
  readonly inventory: InventoryView;
  readonly usage: UsageView;
  /** /health's coverage and components that are not ok. */
  readonly unseen: readonly { readonly what: string; readonly reason: string }[];
  readonly license: {
    readonly state: string;
    readonly licenseId?: string;
    readonly leaseExpiresAt?: number;
    readonly licenseExpiresAt?: number;
    readonly reason?: string;
  };
  readonly providers: { readonly kept: readonly string[]; readonly inactive: readonly string[] };
}

/** /status as JSON (`?format=json`, docs/health.md "/status"). Times are ISO 8601 strings, durations seconds. */
export interface StatusReport {
  cluster: string;
  version: string;
  at: string;
  leading: boolean;
  incidents: {
    id: string;
    root: string;
    reason: string;
    tier: string;
    pages: boolean;
    openedAt: string;
    acknowledged: boolean;
  }[];
  controlPlane: {
    /**
     * The last /readyz reading (`readAt`, ISO 8601): ready, or the failing checks; `unknown` before the first
     * reading (`readAt` absent) or when /readyz could not be read (no permission, not served, no answer).
     */
    apiServer: { ready: boolean; failing: string[]; readAt: string } | { ready: "unknown"; readAt?: string };
    /** `visible` false: no such Lease (managed control planes hide them). */
    leaders: { lease: string; visible: boolean; holder: string | null; renewedSecondsAgo: number | null }[];
    clusterDns: { ready: number; pods: number } | null;
  };
  upgradeReadiness: {
    kubeletVersions: Record<string, number>;
    notReadyNodes: string[];
    /** PodDisruptionBudgets that allow no disruption now: a drain of their nodes would wait. */
    blockingDisruptionBudgets: string[];
  };
  zones: { zone: string; nodes: number; ready: number; notReady: string[] }[];
  cannotSee: { what: string; reason: string }[];
  license: { state: string; licenseId?: string; leaseUntil?: string; expiresAt?: string; reason?: string };
  edition: Edition;
  providers: { kept: string[]; inactive: string[] };
}

/**
 * Builds /status (spec 4.1, docs/health.md): open incidents, control plane, upgrade readiness, zone health,
 * what cannot be seen, License, Edition, the kept and inactive providers. Never a Secret value: it reads
 * Nodes, Leases, PodDisruptionBudgets and cluster DNS pods only, and the license id is the masked one. Pure.
 */
export function statusReport(input: StatusInput): StatusReport {
  const { inventory, now } = input;
  const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
  const nodes = inventory.list("Node");
  const ready = (n: Node) => readyCondition(n)?.status === "True";
  const zones = new Map<string, { nodes: number; ready: number; notReady: string[] }>();
  for (const n of nodes) {
    const zone = n.metadata?.labels?.[ZONE_LABEL] ?? "none";
    const z = zones.get(zone) ?? { nodes: 0, ready: 0, notReady: [] };
    z.nodes += 1;
    if (ready(n)) z.ready += 1;
    else z.notReady.push(n.metadata?.name ?? "");
    zones.set(zone, z);
  }
  const kubelets: Record<string, number> = {};
  for (const n of nodes) {
    const v = n.status?.nodeInfo?.kubeletVersion ?? "unknown";
    kubelets[v] = (kubelets[v] ?? 0) + 1;
  }
  const dnsPods = inventory.list("Pod").filter(isClusterDns);
  const l = input.license;
  return {
    cluster: input.cluster,
    version: input.version,
    at: new Date(now).toISOString(),
    leading: input.leading,
    incidents: [...input.incidents]
      .sort((a, b) => a.openedAt - b.openedAt)
      .map((i) => ({
        id: i.id,
        root: refLabel(i.root),
        reason: i.rootReason,
        tier: i.tier,
        pages: i.mode === "page",
        openedAt: new Date(i.openedAt).toISOString(),
        acknowledged: Boolean(i.ack),
      })),
    controlPlane: {
      apiServer: apiServerStatus(input.usage),
      leaders: LEADER_LEASES.map((name) => {
        const lease = inventory.get("Lease", "kube-system", name);
        const renewed = Date.parse(lease?.spec?.renewTime ?? lease?.spec?.acquireTime ?? "");
        return {
          lease: name,
          visible: lease !== undefined,
          holder: lease?.spec?.holderIdentity || null,
          renewedSecondsAgo: Number.isNaN(renewed) ? null : Math.max(0, Math.round((now - renewed) / 1000)),
        };
      }),
      clusterDns: dnsPods.length
        ? {
            pods: dnsPods.length,
            ready: dnsPods.filter((p) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"))
              .length,
          }
        : null,
    },
    upgradeReadiness: {
      kubeletVersions: kubelets,
      notReadyNodes: nodes.filter((n) => !ready(n)).map((n) => n.metadata?.name ?? ""),
      blockingDisruptionBudgets: inventory
        .list("PodDisruptionBudget")
        .filter((p) => p.status?.disruptionsAllowed === 0 && (p.status?.expectedPods ?? 0) > 0)
        .map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`)
        .sort(),
    },
    zones: [...zones].sort(([a], [b]) => a.localeCompare(b)).map(([zone, z]) => ({ zone, ...z })),
    cannotSee: input.unseen.map((u) => ({ ...u })),
    license: {
      state: l.state,
      ...(l.licenseId ? { licenseId: l.licenseId } : {}),
      ...(l.leaseExpiresAt !== undefined ? { leaseUntil: iso(l.leaseExpiresAt)! } : {}),
      ...(l.licenseExpiresAt !== undefined ? { expiresAt: iso(l.licenseExpiresAt)! } : {}),
      ...(l.reason ? { reason: l.reason } : {}),
    },
    edition: input.edition,
    providers: { kept: [...input.providers.kept], inactive: [...input.providers.inactive] },
  };
}

/** The plain-text /status: one block per section, for `curl` and `kubectl port-forward`. */
export function statusText(r: StatusReport): string {
  const out: string[] = [`mon ${r.version} · cluster ${r.cluster || "(unnamed)"} · ${r.at}`, ""];
  const section = (title: string, lines: string[]) => out.push(title, ...lines.map((l) => `  ${l}`), "");
  section(
    `Open incidents (${r.incidents.length})`,
    r.leading
      ? r.incidents.map(
          (i) =>
            `${i.root}: ${i.reason} · ${i.tier}${i.pages ? " · pages" : ""} · open since ${i.openedAt}${i.acknowledged ? " · acknowledged" : ""}`,
        )
      : ["this replica is a standby; the leader's /status lists them"],
  );
  const cp = r.controlPlane;
  const ago = (at: string) => `${Math.max(0, Math.round((Date.parse(r.at) - Date.parse(at)) / 1000))} s ago`;
  section("Control plane", [
    cp.apiServer.ready === "unknown"
      ? cp.apiServer.readAt
        ? `API server: /readyz could not be read ${ago(cp.apiServer.readAt)} (no permission, not served, or no answer)`
        : "API server: not read yet (the first usage round runs once the caches are synced)"
      : cp.apiServer.ready
        ? `API server: ready (read ${ago(cp.apiServer.readAt)})`
        : `API server: failing ${cp.apiServer.failing.join(", ")} (read ${ago(cp.apiServer.readAt)})`,
    ...cp.leaders.map((l) =>
      l.holder
        ? `${l.lease}: held by ${l.holder}, renewed ${l.renewedSecondsAgo ?? "?"} s ago`
        : `${l.lease}: ${l.visible ? "no holder" : "no Lease visible (managed control plane?)"}`,
    ),
    cp.clusterDns
      ? `cluster DNS: ${cp.clusterDns.ready}/${cp.clusterDns.pods} pods ready`
      : "cluster DNS: no kube-dns pods",
  ]);
  const up = r.upgradeReadiness;
  section("Upgrade readiness", [
    `kubelet versions: ${
      Object.entries(up.kubeletVersions)
        .map(([v, n]) => `${v} ×${n}`)
        .join(", ") || "none"
    }`,
    `nodes not ready: ${up.notReadyNodes.join(", ") || "none"}`,
    `disruption budgets allowing no disruption now: ${up.blockingDisruptionBudgets.join(", ") || "none"}`,
  ]);
  section(
    "Zones",
    r.zones.map(
      (z) =>
        `${z.zone}: ${z.ready}/${z.nodes} nodes ready${z.notReady.length ? ` (not ready: ${z.notReady.join(", ")})` : ""}`,
    ),
  );
  section("What cannot be seen", r.cannotSee.length ? r.cannotSee.map((u) => `${u.what}: ${u.reason}`) : ["nothing"]);
  editionSections(out, r);
  return `${out.join("\n").trimEnd()}\n`;
}

/** Community's text /status (spec 4.1: the text format and the Edition section stay). */
export function communityStatusText(
  input: Pick<StatusInput, "version" | "cluster" | "now" | "providers" | "license">,
): string {
  const out = [
    `mon ${input.version} · cluster ${input.cluster || "(unnamed)"} · ${new Date(input.now).toISOString()}`,
    "",
  ];
  out.push(
    "Edition",
    "  Community: the other sections of /status (open incidents, control plane, upgrade readiness,",
    `  zones, what cannot be seen, license) are Pro; ${communityWhy(input.license)}.`,
    "",
  );
  out.push(
    "Providers",
    `  kept: ${input.providers.kept.join(", ") || "none"}`,
    `  inactive: ${input.providers.inactive.join(", ") || "none"}`,
    "",
  );
  return `${out.join("\n").trimEnd()}\n`;
}

// --- internal ---

/** The control plane's API server line from the last /readyz reading. */
function apiServerStatus(usage: StatusInput["usage"]): StatusReport["controlPlane"]["apiServer"] {
  const reading = usage.apiServerReading;
  const iso = (ms: number) => new Date(ms).toISOString();
  if (!reading)
    return usage.apiServer
      ? { ready: false, failing: [...usage.apiServer.failing], readAt: iso(usage.apiServer.since) }
      : { ready: "unknown" };
  const readAt = iso(reading.at);
  if (!reading.readable) return { ready: "unknown", readAt };
  const failing = [...(usage.apiServer?.failing ?? [])];
  return { ready: failing.length === 0, failing, readAt };
}

/** Why a Community /status shows only its Edition section, from the license state (spec 3.4). */
function communityWhy(license: StatusInput["license"]): string {
  const why = license.reason ? ` (${license.reason})` : "";
  switch (license.state) {
    case "community":
      return "set license.key to see them";
    case "pending":
      return `a license key is set, but no trusted answer has granted Pro yet${why}`;
    default:
      return `the license key is set but ${license.state}${why}`;
  }
}

function editionSections(out: string[], r: StatusReport): void {
  const l = r.license;
  out.push(
    "License",
    `  ${l.state}${l.licenseId ? ` · ${l.licenseId}` : ""}${l.leaseUntil ? ` · lease until ${l.leaseUntil}` : ""}${l.expiresAt ? ` · expires ${l.expiresAt}` : ""}${l.reason ? ` · ${l.reason}` : ""}`,
    "",
    "Edition",
    `  ${r.edition === "pro" ? "Pro" : "Community"}`,
    "",
    "Providers",
    `  kept: ${r.providers.kept.join(", ") || "none"}`,
    `  inactive: ${r.providers.inactive.join(", ") || "none"}`,
    "",
  );
}
