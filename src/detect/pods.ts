import type { Finding } from "../model/finding.ts";
import type { InventoryView, KubeObject } from "../model/inventory.ts";
import { CATALOGUE, type Reason } from "./catalogue.ts";
import { evidence, parseTime } from "./evidence.ts";
import { readyCondition } from "./nodes.ts";

const IMAGE_WAITING = new Set(["ImagePullBackOff", "ErrImagePull"]);

/**
 * Pod failures (spec 1.2; failure-catalogue A1, A2, A5, A9/A10, A21, A24), with the evidence an engineer
 * acts on: container, exit code, last termination reason and message, restart count, image, scheduler message.
 * A pod on a node that is not Ready yields only PodNodeLost (its container statuses are stale). Pure.
 */
export function detectPods(inventory: InventoryView, now: number): Finding[] {
  const findings: Finding[] = [];
  for (const pod of inventory.list("Pod")) {
    const phase = pod.status?.phase;
    if (phase === "Succeeded") continue;
    const nodeName: string | undefined = pod.spec?.nodeName || undefined;
    const node = nodeName ? inventory.get("Node", undefined, nodeName) : undefined;
    const nodeReady = node ? readyCondition(node) : undefined;
    if (node && nodeReady && nodeReady.status !== "True") {
      findings.push(podNodeLost(pod, nodeName ?? "", nodeReady.lastTransitionTime, now));
      continue;
    }
    if (pod.metadata?.deletionTimestamp) continue;
    const unschedulable = unschedulableCondition(pod);
    if (phase === "Pending" && unschedulable) {
      findings.push(make(pod, "FailedScheduling", undefined, `pod ${podName(pod)} cannot be scheduled: ${unschedulable.message ?? "no node fits"}`, [["scheduler", unschedulable.message]], parseTime(unschedulable.lastTransitionTime, now)));
      continue;
    }
    const statuses = [
      ...((pod.status?.initContainerStatuses ?? []) as KubeObject[]).map((s) => ({ s, init: true })),
      ...((pod.status?.containerStatuses ?? []) as KubeObject[]).map((s) => ({ s, init: false })),
    ];
    for (const { s, init } of statuses) {
      const finding = containerFinding(pod, s, init, now);
      if (finding) findings.push(finding);
    }
  }
  return findings;
}

// --- internal ---

function containerFinding(pod: KubeObject, status: KubeObject, init: boolean, now: number): Finding | undefined {
  const waiting = status.state?.waiting;
  const terminatedNow = status.state?.terminated;
  const last = status.lastState?.terminated;
  const container = `${status.name}${init ? " (init)" : ""}`;
  const since = parseTime(last?.finishedAt ?? pod.status?.startTime ?? pod.metadata?.creationTimestamp, now);
  const exit = (t: KubeObject | undefined) => (t ? `${t.exitCode}${t.reason ? ` (${t.reason})` : ""}` : undefined);
  const common: [string, unknown][] = [
    ["container", container],
    ["restarts", status.restartCount],
    ["image", status.image],
  ];
  if (terminatedNow?.reason === "OOMKilled" || (waiting?.reason === "CrashLoopBackOff" && last?.reason === "OOMKilled")) {
    const limit = memoryLimit(pod, status.name);
    return make(pod, "OOMKilled", status.name, `container ${container} of pod ${podName(pod)} was OOM-killed${limit ? ` (memory limit ${limit})` : ""}; ${status.restartCount ?? 0} restarts`, [
      ...common,
      ["exit code", exit(terminatedNow ?? last)],
      ["memory limit", limit],
      ["last termination", (terminatedNow ?? last)?.finishedAt],
    ], since);
  }
  if (waiting?.reason === "CrashLoopBackOff") {
    const output = last?.message ? `; last output: "${oneLine(last.message)}"` : "";
    return make(pod, "CrashLoopBackOff", status.name, `container ${container} of pod ${podName(pod)} is crash-looping: exit ${exit(last) ?? "unknown"}, ${status.restartCount ?? 0} restarts${output}`, [
      ...common,
      ["exit code", exit(last)],
      ["last output", last?.message ? oneLine(last.message) : undefined],
      ["last termination", last?.finishedAt],
      ["back-off", waiting.message],
    ], since);
  }
  if (waiting?.reason && IMAGE_WAITING.has(waiting.reason)) {
    return make(pod, "ImagePullBackOff", status.name, `pod ${podName(pod)} cannot pull image ${status.image}: ${waiting.message ?? waiting.reason}`, [
      ["container", container],
      ["image", status.image],
      ["state", waiting.reason],
      ["message", waiting.message],
    ], since);
  }
  if (waiting?.reason === "CreateContainerConfigError") {
    return make(pod, "CreateContainerConfigError", status.name, `container ${container} of pod ${podName(pod)} cannot be configured: ${waiting.message ?? "configuration error"}`, [
      ["container", container],
      ["message", waiting.message],
      ["image", status.image],
    ], since);
  }
  return undefined;
}

function podNodeLost(pod: KubeObject, node: string, lastReady: string | undefined, now: number): Finding {
  const entry = CATALOGUE.PodNodeLost;
  return {
    key: `${entry.reason}/Pod/${pod.metadata.namespace}/${pod.metadata.name}`,
    reason: entry.reason,
    object: ref(pod),
    tier: entry.tier,
    summary: `pod ${podName(pod)} went down with node ${node}`,
    evidence: evidence([["node", node], ["node not ready since", lastReady]]),
    nodeName: node,
    since: parseTime(lastReady, now),
  };
}

function make(pod: KubeObject, reason: Reason, container: string | undefined, summary: string, pairs: readonly (readonly [string, unknown])[], since: number): Finding {
  const entry = CATALOGUE[reason];
  return {
    key: `${reason}/Pod/${pod.metadata.namespace}/${pod.metadata.name}${container ? `/${container}` : ""}`,
    reason,
    object: ref(pod),
    ...(container ? { container } : {}),
    tier: entry.tier,
    summary,
    evidence: evidence(pairs),
    ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}),
    since,
  };
}

function ref(pod: KubeObject) {
  return { kind: "Pod", namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid };
}

function podName(pod: KubeObject): string {
  return `${pod.metadata.namespace}/${pod.metadata.name}`;
}

function unschedulableCondition(pod: KubeObject): { message?: string; lastTransitionTime?: string } | undefined {
  return (pod.status?.conditions ?? []).find((c: KubeObject) => c.type === "PodScheduled" && c.status === "False" && c.reason === "Unschedulable");
}

function memoryLimit(pod: KubeObject, container: string): string | undefined {
  const spec = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].find((c: KubeObject) => c.name === container);
  return spec?.resources?.limits?.memory;
}

function oneLine(text: string): string {
  const lines = String(text).trim().split("\n");
  return (lines[lines.length - 1] ?? "").trim();
}
