import type { KubeConnection } from "./connection.ts";
import { KubeError } from "./errors.ts";

/** Node and pod usage from the metrics API (metrics.k8s.io/v1beta1), when installed. */
export interface UsageSnapshot {
  readonly nodes: readonly unknown[];
  readonly pods: readonly unknown[];
}

/**
 * Reads the metrics API when present (spec 1.2): node and pod metrics lists. Returns `unavailable` when the
 * API is not installed (404), so the detectors that need it stay silent (spec 1.5). Throws KubeError for
 * other failures.
 */
export async function readMetricsApi(
  connection: KubeConnection,
  signal?: AbortSignal,
): Promise<UsageSnapshot | "unavailable"> {
  try {
    const nodes = await connection.getJson<{ items: unknown[] }>("/apis/metrics.k8s.io/v1beta1/nodes", signal);
    const pods = await connection.getJson<{ items: unknown[] }>("/apis/metrics.k8s.io/v1beta1/pods", signal);
    return { nodes: nodes.items ?? [], pods: pods.items ?? [] };
  } catch (error) {
    if (error instanceof KubeError && error.failure === "not_found") return "unavailable";
    throw error;
  }
}
