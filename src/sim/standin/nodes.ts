import type { KubeConnection } from "../../kube/connection.ts";
import type { Clock } from "../../runtime/clock.ts";
import { type KubeObject, timestamp } from "../store.ts";

/** How long a kubelet's heartbeat request may take before it gives up (its client timeout), ms. */
const HEARTBEAT_TIMEOUT_MS = 10_000;

/** How often a kubelet renews its node's Lease (kubelet: `nodeLeaseDurationSeconds` 40 × 0.25), ms. */
export const LEASE_RENEW_MS = 10_000;
/** The Lease's duration, seconds (kubelet default). */
const LEASE_DURATION_SECONDS = 40;
/** How often a kubelet posts its node's status when nothing changed (`nodeStatusReportFrequency`), ms. */
const STATUS_REPORT_MS = 5 * 60_000;

/** One node the stand-in runs: its name, labels and InternalIP (a loopback address, so nothing dials out). */
export interface StandInNode {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: readonly KubeObject[];
  readonly address: string;
  /** The port of its kubelet endpoint (logs, stats) on `address`; 10250 when none runs. */
  readonly kubeletPort?: number;
}

/** A node's kubelet heartbeats: registration, the Lease every 10 s, the status every 5 minutes, while it runs. */
export interface NodeHeartbeats {
  /** Registers the node (created Ready, or its status posted when it exists) and starts renewing it. */
  register(node: StandInNode): Promise<void>;
  /** The kubelet goes silent: no Lease renewal, no status (the node lifecycle controller then marks it). */
  stop(name: string): void;
  /** The kubelet is back: status Ready at once, Lease renewed, heartbeats again. */
  start(name: string): Promise<void>;
  /** Whether the node's kubelet is silent. */
  silent(name: string): boolean;
  /** Every node registered. */
  names(): ReadonlySet<string>;
  stopAll(): void;
}

/**
 * Node heartbeats as a v1.32 kubelet sends them (issue 40): the Node registered with its capacity, addresses,
 * node info and Ready condition; a Lease in `kube-node-lease` renewed every 10 s (the node lifecycle controller's
 * heartbeat); the status posted every 5 minutes (nodeStatusReportFrequency, as a real kubelet v1.32 with nothing changed: measured on the real node, issue 50) and on every change. Real clock.
 */
export function nodeHeartbeats(connection: KubeConnection, clock: Clock): NodeHeartbeats {
  const nodes = new Map<string, { node: StandInNode; silent: boolean; cancel?: () => void }>();
  const request = async (path: string, method: string, body: unknown, type = "application/json") => {
    // A kubelet's heartbeat client gives up after its timeout: a request to a dying API server never hangs it.
    const response = await connection.request(path, {
      method,
      headers: { "content-type": type },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(HEARTBEAT_TIMEOUT_MS),
    });
    const text = await response.text();
    return { status: response.status, text };
  };
  const conditions = (at: string) => [
    ...(["MemoryPressure", "DiskPressure", "PIDPressure"] as const).map((type) => ({
      type,
      status: "False",
      lastHeartbeatTime: at,
      lastTransitionTime: at,
      reason: `KubeletHas${type === "PIDPressure" ? "SufficientPID" : `No${type}`}`,
      message: `kubelet has ${type === "PIDPressure" ? "sufficient PID available" : `no ${type.replace("Pressure", " pressure").toLowerCase()}`}`,
    })),
    {
      type: "Ready",
      status: "True",
      lastHeartbeatTime: at,
      lastTransitionTime: at,
      reason: "KubeletReady",
      message: "kubelet is posting ready status",
    },
  ];
  const status = (node: StandInNode, at: string): KubeObject => ({
    capacity: { cpu: "8", memory: "32Gi", pods: "110", "ephemeral-storage": "100Gi" },
    allocatable: { cpu: "8", memory: "32Gi", pods: "110", "ephemeral-storage": "100Gi" },
    conditions: conditions(at),
    // No Hostname address: kube-apiserver would dial it first (--kubelet-preferred-address-types) for logs.
    addresses: [{ type: "InternalIP", address: node.address }],
    daemonEndpoints: { kubeletEndpoint: { Port: node.kubeletPort ?? 10250 } },
    nodeInfo: {
      machineID: "",
      systemUUID: "",
      bootID: `boot-${node.name}`,
      kernelVersion: "6.1.0",
      osImage: "Debian GNU/Linux 12 (bookworm)",
      containerRuntimeVersion: "containerd://1.7.24",
      kubeletVersion: "v1.32.13",
      kubeProxyVersion: "v1.32.13",
      operatingSystem: "linux",
      architecture: "amd64",
    },
  });
  /**
   * Posts the node's status with fresh heartbeats (conditions True since their last transition). With
   * `onlyIfChanged`, only when a condition in the API server differs from what this kubelet would post — as the
   * kubelet's status loop does every 10 s (`nodeStatusHasChanged`): a Ready the node lifecycle controller set
   * Unknown while heartbeats could not arrive (a control-plane outage) is put right at the next beat.
   */
  const postStatus = async (name: string, onlyIfChanged = false) => {
    const entry = nodes.get(name);
    if (!entry || entry.silent) return;
    const at = timestamp(clock.now());
    const current = await connection.getJson<KubeObject>(`/api/v1/nodes/${name}`).catch(() => undefined);
    const kept = new Map<string, KubeObject>(
      (current?.status?.conditions ?? []).map((c: KubeObject) => [c.type as string, c]),
    );
    const fresh = status(entry.node, at);
    if (
      onlyIfChanged &&
      current &&
      (fresh.conditions as KubeObject[]).every((c) => kept.get(c.type as string)?.status === c.status)
    )
      return;
    fresh.conditions = (fresh.conditions as KubeObject[]).map((c) => {
      const before = kept.get(c.type);
      return before && before.status === c.status ? { ...c, lastTransitionTime: before.lastTransitionTime } : c;
    });
    await request(`/api/v1/nodes/${name}/status`, "PATCH", { status: fresh }, "application/merge-patch+json");
  };
  const renewLease = async (name: string) => {
    const entry = nodes.get(name);
    if (!entry || entry.silent) return;
    const now = new Date(clock.now()).toISOString().replace("Z", "000Z");
    const path = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${name}`;
    const renewed = await request(path, "PATCH", { spec: { renewTime: now } }, "application/merge-patch+json");
    if (renewed.status === 404) {
      const node = await connection.getJson<KubeObject>(`/api/v1/nodes/${name}`).catch(() => undefined);
      await request("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", "POST", {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: {
          name,
          namespace: "kube-node-lease",
          ...(node ? { ownerReferences: [{ apiVersion: "v1", kind: "Node", name, uid: node.metadata.uid }] } : {}),
        },
        spec: { holderIdentity: name, leaseDurationSeconds: LEASE_DURATION_SECONDS, renewTime: now },
      });
    }
  };
  const beat = (name: string) => {
    const entry = nodes.get(name);
    if (!entry) return;
    entry.cancel?.();
    let sinceStatus = 0;
    const tick = () => {
      if (entry.silent) return;
      sinceStatus += LEASE_RENEW_MS;
      const status = sinceStatus >= STATUS_REPORT_MS;
      if (status) sinceStatus = 0;
      // A kubelet that cannot reach the API server (a control-plane outage) tries again at its next beat.
      void renewLease(name)
        .then(() => postStatus(name, !status))
        .catch(() => {});
      entry.cancel = clock.setTimer(tick, LEASE_RENEW_MS);
    };
    entry.cancel = clock.setTimer(tick, LEASE_RENEW_MS);
  };
  return {
    async register(node) {
      nodes.set(node.name, { node, silent: false });
      const created = await request("/api/v1/nodes", "POST", {
        apiVersion: "v1",
        kind: "Node",
        metadata: {
          name: node.name,
          labels: {
            "kubernetes.io/hostname": node.name,
            "kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64",
            ...node.labels,
          },
        },
        spec: node.taints?.length ? { taints: node.taints } : {},
      });
      if (created.status !== 201 && created.status !== 409)
        throw new Error(`kubelet stand-in: could not register node ${node.name}: ${created.text.slice(0, 300)}`);
      await postStatus(node.name);
      await renewLease(node.name);
      beat(node.name);
    },
    stop(name) {
      const entry = nodes.get(name);
      if (!entry) throw new Error(`kubelet stand-in: no node ${name}`);
      entry.silent = true;
      entry.cancel?.();
    },
    async start(name) {
      const entry = nodes.get(name);
      if (!entry) throw new Error(`kubelet stand-in: no node ${name}`);
      entry.silent = false;
      await renewLease(name);
      await postStatus(name);
      beat(name);
    },
    silent: (name) => nodes.get(name)?.silent ?? false,
    names: () => new Set(nodes.keys()),
    stopAll() {
      for (const entry of nodes.values()) {
        entry.silent = true;
        entry.cancel?.();
      }
    },
  };
}
