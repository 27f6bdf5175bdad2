import type { KubeConnection } from "./connection.ts";

/** The namespace of the nodes' Leases, which each kubelet renews every 10 s (its heartbeat). */
export const NODE_LEASE_NAMESPACE = "kube-node-lease";

/**
 * A node's last heartbeat as its Lease tells it: `renewedAt` (the Lease's `renewTime`, RFC 3339), or why it
 * could not be read (`unavailable`, one short sentence).
 */
export type HeartbeatRead = { readonly renewedAt: string } | { readonly unavailable: string };

/**
 * Reads a node's heartbeat (issue 50): the `renewTime` of its Lease in kube-node-lease. A kubelet renews it every
 * 10 s and rewrites its Node's status only on a change or every 5 minutes, so the Lease, not the Ready condition's
 * `lastHeartbeatTime`, says when the kubelet was last heard from. Needs `get` on leases (the ClusterRole grants
 * it). Never throws.
 */
export async function readNodeHeartbeat(
  connection: KubeConnection,
  node: string,
  signal?: AbortSignal,
): Promise<HeartbeatRead> {
  try {
    const response = await connection.request(
      `/apis/coordination.k8s.io/v1/namespaces/${NODE_LEASE_NAMESPACE}/leases/${encodeURIComponent(node)}`,
      { headers: { accept: "application/json" }, ...(signal ? { signal } : {}) },
    );
    if (response.status === 404) {
      await response.body?.cancel();
      return { unavailable: "the node has no Lease in kube-node-lease" };
    }
    if (response.status === 403) {
      await response.body?.cancel();
      return { unavailable: "no permission to get the node's Lease (kube-node-lease)" };
    }
    if (!response.ok) {
      await response.body?.cancel();
      return { unavailable: `its Lease could not be read (HTTP ${response.status})` };
    }
    const lease = (await response.json()) as { spec?: { renewTime?: string } };
    const renewed = lease.spec?.renewTime;
    return renewed ? { renewedAt: renewed } : { unavailable: "its Lease was never renewed" };
  } catch (error) {
    const e = error as { name?: string; message?: string };
    return {
      unavailable: `its Lease could not be read (${e.name === "TimeoutError" || e.name === "AbortError" ? "no answer in time" : (e.message ?? "unreachable")})`,
    };
  }
}
