import type { Reason } from "./catalogue.ts";
import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { Event } from "../model/kube.ts";
import { finding } from "./build.ts";
import { CONFIG_RETRY_MS, configAppearedAt } from "./config-fixed.ts";
import { parseTime } from "./evidence.ts";

/** Events count toward a finding only while this recent: event-only findings resolve after this quiet period (failure-catalogue 0.3). */
export const EVENT_WINDOW_MS = 15 * 60_000;

/** Warning event reasons that become findings: the finding's reason, the involved kind, and occurrences needed in the window. */
export const EVENT_FINDINGS: Readonly<Record<string, { reason: Reason; kind: string; minCount: number }>> = {
  FailedMount: { reason: "FailedMount", kind: "Pod", minCount: 2 },
  FailedMapVolume: { reason: "FailedMount", kind: "Pod", minCount: 2 },
  FailedAttachVolume: { reason: "FailedAttachVolume", kind: "Pod", minCount: 1 },
  FailedCreatePodSandBox: { reason: "FailedCreatePodSandBox", kind: "Pod", minCount: 3 },
  NetworkNotReady: { reason: "NetworkNotReady", kind: "Pod", minCount: 1 },
  SystemOOM: { reason: "NodeSystemOOM", kind: "Node", minCount: 1 },
  EvictionThresholdMet: { reason: "NodeEvicting", kind: "Node", minCount: 1 },
  FreeDiskSpaceFailed: { reason: "NodeImageGCFailed", kind: "Node", minCount: 1 },
  ImageGCFailed: { reason: "NodeImageGCFailed", kind: "Node", minCount: 1 },
  Rebooted: { reason: "NodeRebooted", kind: "Node", minCount: 1 },
};

/**
 * Warning event reasons whose failure the objects' own status already shows (or that only add evidence):
 * neither findings nor unexplained (failure-catalogue 0.5).
 */
export const EXPLAINED_EVENTS: ReadonlySet<string> = new Set([
  "BackOff",
  "Unhealthy",
  "FailedScheduling",
  "Failed",
  "FailedKillPod",
  "ProbeWarning",
  "FailedCreate",
  "FailedSync",
  "FailedPreStopHook",
  "FailedPostStartHook",
  "ExceededGracePeriod",
  "ErrImageNeverPull",
  "InspectFailed",
  "ProvisioningFailed",
  "FailedBinding",
  "NodeNotReady",
  "NodeNotSchedulable",
  "TaintManagerEviction",
  "InvalidDiskCapacity",
  "FailedGetScale",
  "FailedComputeMetricsReplicas",
  "FailedGetResourceMetric",
  "SyncLoadBalancerFailed",
  "DNSConfigForming",
  "Evicted",
  "Preempting",
  "BackoffLimitExceeded",
  "DeadlineExceeded",
  "FailedToUpdateEndpoint",
  "FailedToUpdateEndpointSlices",
]);

/**
 * The event family (spec 1.2, 6): recent Warning events turned into findings by reason (mount and attach
 * failures, sandbox failures, node OOM, evictions, image GC, reboots), counting occurrences in the last 15
 * minutes (`count`, `series.count`). Pure.
 */
export function detectEvents(inventory: InventoryView, now: number): Finding[] {
  const grouped = new Map<
    string,
    { rule: (typeof EVENT_FINDINGS)[string]; event: Event; count: number; first: number; last: number }
  >();
  for (const event of recentWarnings(inventory, now)) {
    const rule = EVENT_FINDINGS[event.reason ?? ""];
    if (!rule || event.involvedObject?.kind !== rule.kind || !event.involvedObject.name) continue;
    const o = event.involvedObject;
    const key = `${rule.reason}/${o.kind}/${o.namespace ?? ""}/${o.name}`;
    const seen = grouped.get(key);
    const count = event.series?.count ?? event.count ?? 1;
    const last = lastSeen(event, now);
    const first = parseTime(event.firstTimestamp ?? event.eventTime ?? event.metadata?.creationTimestamp, last);
    if (!seen) grouped.set(key, { rule, event, count, first, last });
    else
      grouped.set(key, {
        rule,
        event: last >= seen.last ? event : seen.event,
        count: seen.count + count,
        first: Math.min(first, seen.first),
        last: Math.max(last, seen.last),
      });
  }
  const out: Finding[] = [];
  for (const g of grouped.values()) {
    if (g.count < g.rule.minCount) continue;
    const o = g.event.involvedObject;
    if (o.kind === "Pod" && podEventIsHistory(inventory, o.namespace, o.name ?? "", g.last, now)) continue;
    const subject = o.kind === "Node" ? `node ${o.name}` : `pod ${o.namespace}/${o.name}`;
    out.push(
      finding({
        reason: g.rule.reason,
        object: {
          kind: g.rule.kind,
          ...(o.namespace ? { namespace: o.namespace } : {}),
          name: o.name ?? "",
          ...(o.uid ? { uid: o.uid } : {}),
        },
        ...(o.kind === "Node" ? { nodeName: o.name } : {}),
        summary: `${subject}: ${g.event.reason} (${g.count}× in ${Math.max(1, Math.round((g.last - g.first) / 60_000))} min): ${g.event.message ?? ""}`,
        evidence: [
          ["event", g.event.reason],
          ["message", g.event.message],
          ["count", g.count],
          ["last seen", new Date(g.last).toISOString()],
          ["reported by", g.event.source?.component ?? g.event.reportingComponent],
        ],
        since: g.first,
        now,
        // Event findings end when their events are older than the window: a pass is due then.
        recheckAt: g.last + EVENT_WINDOW_MS,
      }),
    );
  }
  return out;
}

/** UIDs of recent Warning events whose reason mon neither turns into a finding nor knows as explained (`mon_unexplained_total{kind="event"}`). */
export function unexplainedEvents(inventory: InventoryView, now: number): string[] {
  return recentWarnings(inventory, now)
    .filter((e) => !EVENT_FINDINGS[e.reason ?? ""] && !EXPLAINED_EVENTS.has(e.reason ?? ""))
    .map((e) => String(e.metadata?.uid ?? `${e.metadata?.namespace}/${e.metadata?.name}`));
}

// --- internal ---

/**
 * A pod's warning events are history (recovery is quiet) once the pod is gone; once every container of it
 * runs and started after the last of them (it mounted its volumes and got its sandbox and network since);
 * and for a minute after a ConfigMap or Secret it references appeared, while the kubelet's next retry starts it.
 */
function podEventIsHistory(
  inventory: InventoryView,
  namespace: string | undefined,
  name: string,
  lastMs: number,
  now: number,
): boolean {
  if (!inventory.watches("Pod")) return false;
  const pod = inventory.get("Pod", namespace, name);
  if (!pod) return true;
  if (now < configAppearedAt(pod, inventory) + CONFIG_RETRY_MS) return true;
  const statuses = pod.status?.containerStatuses ?? [];
  return (
    statuses.length > 0 &&
    statuses.every(
      (s) => s.state?.running && parseTime(s.state.running.startedAt, 0) >= Math.floor(lastMs / 1000) * 1000,
    )
  );
}

function recentWarnings(inventory: InventoryView, now: number): Event[] {
  return inventory.list("Event").filter((e) => e.type === "Warning" && now - lastSeen(e, now) <= EVENT_WINDOW_MS);
}

function lastSeen(event: Event, now: number): number {
  return parseTime(
    event.series?.lastObservedTime ?? event.lastTimestamp ?? event.eventTime ?? event.metadata?.creationTimestamp,
    now,
  );
}
