import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { Event } from "../model/kube.ts";
import { finding } from "./build.ts";
import { parseTime } from "./evidence.ts";

/** Events count toward a finding only while this recent: event-only findings resolve after this quiet period (failure-catalogue 0.3). */
export const EVENT_WINDOW_MS = 15 * 60_000;

/** Warning event reasons that become findings: the finding's reason, the involved kind, and occurrences needed in the window. */
export const EVENT_FINDINGS: Readonly<Record<string, { reason: string; kind: string; minCount: number }>> = {
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

function recentWarnings(inventory: InventoryView, now: number): Event[] {
  return inventory.list("Event").filter((e) => e.type === "Warning" && now - lastSeen(e, now) <= EVENT_WINDOW_MS);
}

function lastSeen(event: Event, now: number): number {
  return parseTime(
    event.series?.lastObservedTime ?? event.lastTimestamp ?? event.eventTime ?? event.metadata?.creationTimestamp,
    now,
  );
}
