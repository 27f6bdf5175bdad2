import { type KubeObject, timestamp } from "../store.ts";
import { withCondition } from "./api.ts";
import type { Controller } from "./controller.ts";
import type { NodeState } from "./kubelet.ts";
import { tolerates } from "./scheduler.ts";
import type { TimingProfile } from "./timing.ts";

/** The Node annotation that stops its kubelet: `kubectl annotate node worker-2 sim.mon.io/kubelet=stopped`. */
export const KUBELET_ANNOTATION = "sim.mon.io/kubelet";

const UNREACHABLE = "node.kubernetes.io/unreachable";
const CONDITIONS = ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"] as const;

interface Silence {
  since: number;
  marked?: number;
  returned?: number;
}

/**
 * The node lifecycle controller and each node's kubelet heartbeat (docs/simulator.md "Node loss"). A node whose
 * kubelet is stopped is marked after `node-monitor-grace-period` (50 s): every condition Unknown, the
 * unreachable NoSchedule and NoExecute taints, its pods Ready=False, NodeNotReady events; pods that tolerate
 * the taint only for `tolerationSeconds` (300 s by default) are then evicted. When the kubelet is back it
 * reports Ready at once, the taints go 0.6 s (NoSchedule) and 3.5 s (NoExecute) later and the pods are Ready
 * again 3.3 s later, as recorded (durations from `timing`).
 */
export function createNodeLifecycle(timing: TimingProfile): Controller & NodeState {
  const silences = new Map<string, Silence>();
  /** Nodes whose Lease in kube-node-lease exists. */
  const leases = new Set<string>();
  return {
    name: "node-lifecycle",
    quietUntil(node) {
      const s = silences.get(node);
      if (!s) return 0;
      if (s.returned === undefined) return Number.POSITIVE_INFINITY;
      return s.returned + timing.nodeReturnReadyMs;
    },
    sync(api) {
      const now = api.now();
      let wake: number | undefined;
      const at = (t: number) => {
        if (t > now) wake = Math.min(wake ?? t, t);
      };
      for (const node of api.list("Node")) {
        const name = node.metadata.name;
        const stopped = node.metadata.annotations?.[KUBELET_ANNOTATION] === "stopped";
        let s = silences.get(name);
        if (!leases.has(name)) renewLease(api, name, now, leases);
        if (stopped && (!s || s.returned !== undefined)) {
          s = { since: now };
          silences.set(name, s);
          // The kubelet's last renewal before it went silent: its heartbeat.
          renewLease(api, name, now, leases);
        }
        if (!s) continue;
        if (stopped) {
          if (s.marked === undefined && now >= s.since + timing.nodeMonitorGraceMs) {
            s.marked = now;
            markUnknown(api, node, now);
          }
          if (s.marked === undefined) at(s.since + timing.nodeMonitorGraceMs);
          else for (const t of evict(api, node, s.marked, now)) at(t);
          continue;
        }
        // The kubelet is back.
        if (s.marked === undefined) {
          silences.delete(name);
          continue;
        }
        if (s.returned === undefined) {
          s.returned = now;
          renewLease(api, name, now, leases);
          const conditions = CONDITIONS.reduce(
            (list, type) =>
              withCondition(
                list,
                type === "Ready"
                  ? {
                      type,
                      status: "True",
                      reason: "KubeletReady",
                      message: "kubelet is posting ready status",
                      lastHeartbeatTime: timestamp(now),
                    }
                  : {
                      type,
                      status: "False",
                      reason: `KubeletHas${type === "PIDPressure" ? "SufficientPID" : `No${type}`}`,
                      message: "kubelet is healthy",
                      lastHeartbeatTime: timestamp(now),
                    },
                now,
              ),
            node.status?.conditions as KubeObject[] | undefined,
          );
          api.setStatus(node, { ...node.status, conditions });
          api.event(node, "Normal", "NodeReady", `Node ${name} status is now: NodeReady`, "kubelet");
        }
        const gone = [
          ...(now >= s.returned + timing.taintRemovalMs ? ["NoSchedule"] : []),
          ...(now >= s.returned + timing.noExecuteRemovalMs ? ["NoExecute"] : []),
        ];
        if (gone.length) {
          const fresh = api.get("Node", undefined, name) ?? node;
          const taints = (fresh.spec?.taints ?? []).filter(
            (t: KubeObject) => t.key !== UNREACHABLE || !gone.includes(t.effect),
          );
          api.update({ ...fresh, spec: { ...fresh.spec, taints: taints.length ? taints : undefined } });
        }
        for (const t of [timing.taintRemovalMs, timing.noExecuteRemovalMs]) at(s.returned + t);
        const over = s.returned + Math.max(timing.nodeReturnReadyMs, timing.noExecuteRemovalMs);
        if (now >= over) silences.delete(name);
        else at(over);
      }
      return wake;
    },
  };
}

// --- internal ---

/**
 * Writes the node's Lease in kube-node-lease as its kubelet renews it (issue 50: a node's heartbeat is its
 * Lease): `renewTime` is the kubelet's last renewal. A real kubelet renews it every 10 s; here it is written when
 * the node is first seen, when its kubelet stops (its last heartbeat) and when it is back — what a reader of a
 * down node's Lease sees, without an event every 10 s per node (docs/simulator.md).
 */
function renewLease(api: Parameters<Controller["sync"]>[0], node: string, now: number, leases: Set<string>): void {
  const spec = { holderIdentity: node, leaseDurationSeconds: 40, renewTime: microTime(now) };
  const current = api.get("Lease", "kube-node-lease", node);
  if (current) api.update({ ...current, spec: { ...current.spec, ...spec } });
  else
    api.create("Lease", "kube-node-lease", {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { namespace: "kube-node-lease", name: node },
      spec,
    });
  leases.add(node);
}

/** A MicroTime as the API server writes it (`2026-12-02T00:46:45.459171Z`). */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

function markUnknown(api: Parameters<Controller["sync"]>[0], node: KubeObject, now: number): void {
  const conditions = CONDITIONS.reduce(
    (list, type) =>
      withCondition(
        list,
        {
          type,
          status: "Unknown",
          reason: "NodeStatusUnknown",
          message: "Kubelet stopped posting node status.",
          lastHeartbeatTime: (list ?? []).find((c: KubeObject) => c.type === type)?.lastHeartbeatTime ?? timestamp(now),
        },
        now,
      ),
    node.status?.conditions as KubeObject[] | undefined,
  );
  const marked = api.setStatus(node, { ...node.status, conditions });
  const taints = [
    ...(node.spec?.taints ?? []).filter((t: KubeObject) => t.key !== UNREACHABLE),
    { key: UNREACHABLE, effect: "NoSchedule", timeAdded: timestamp(now) },
    { key: UNREACHABLE, effect: "NoExecute", timeAdded: timestamp(now) },
  ];
  api.update({ ...marked, spec: { ...marked.spec, taints } });
  api.event(
    node,
    "Normal",
    "NodeNotReady",
    `Node ${node.metadata.name} status is now: NodeNotReady`,
    "node-controller",
  );
  for (const pod of api.list("Pod")) {
    if (pod.spec?.nodeName !== node.metadata.name) continue;
    const podConditions = withCondition(pod.status?.conditions, { type: "Ready", status: "False" }, now);
    api.setStatus(pod, { ...pod.status, conditions: podConditions });
    api.event(pod, "Warning", "NodeNotReady", "Node is not ready", "node-controller");
  }
}

/** Evicts the node's pods whose unreachable toleration has run out; returns the times of the next evictions. */
function evict(api: Parameters<Controller["sync"]>[0], node: KubeObject, markedAt: number, now: number): number[] {
  const later: number[] = [];
  for (const pod of api.list("Pod")) {
    if (pod.spec?.nodeName !== node.metadata.name || pod.metadata.deletionTimestamp) continue;
    const taint = { key: UNREACHABLE, effect: "NoExecute" };
    if (!tolerates(pod, taint)) {
      api.remove("Pod", pod.metadata.namespace, pod.metadata.name);
      continue;
    }
    const seconds = (pod.spec?.tolerations ?? []).find(
      (t: KubeObject) =>
        (t.key === UNREACHABLE || (!t.key && t.operator === "Exists")) && (!t.effect || t.effect === "NoExecute"),
    )?.tolerationSeconds;
    if (typeof seconds !== "number") continue;
    const due = markedAt + seconds * 1000;
    if (now >= due) {
      api.event(
        pod,
        "Normal",
        "TaintManagerEviction",
        `Marking for deletion Pod ${pod.metadata.namespace}/${pod.metadata.name}`,
        "taint-eviction-controller",
      );
      api.remove("Pod", pod.metadata.namespace, pod.metadata.name);
    } else later.push(due);
  }
  return later;
}
