import { configReferences } from "../model/config-refs.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { ContainerStatus, Pod } from "../model/kube.ts";
import { parseTime } from "./evidence.ts";

/** How long after a missing ConfigMap or Secret appears the kubelet's retry may take to start the container, ms. */
export const CONFIG_RETRY_MS = 60_000;

/**
 * When a container waits with CreateContainerConfigError naming a ConfigMap or Secret that exists now: the time
 * (epoch ms) that object was created, from which the kubelet's next retry (every 10–15 s) starts the container.
 * Undefined when the container is not waiting on such an object, or its kind is not watched. Pure.
 */
export function configFixedAt(pod: Pod, status: ContainerStatus, inventory: InventoryView): number | undefined {
  const waiting = status.state?.waiting;
  if (waiting?.reason !== "CreateContainerConfigError") return undefined;
  const missing = /\b(configmap|secret) "([^"]+)" not found/i.exec(waiting.message ?? "");
  if (!missing) return undefined;
  const kind = missing[1]!.toLowerCase() === "secret" ? "Secret" : "ConfigMap";
  if (!inventory.watches(kind)) return undefined;
  const object = inventory.get(kind, pod.metadata.namespace, missing[2]!);
  return object ? parseTime(object.metadata.creationTimestamp, 0) : undefined;
}

/**
 * The latest time (epoch ms) a ConfigMap or Secret this pod references (volumes, projected volumes, env,
 * envFrom, of init and app containers) was created, 0 when none exists or none is watched: a pod that waited
 * for one (FailedMount, CreateContainerConfigError) starts at the kubelet's next retry after it appeared.
 * Pure.
 */
export function configAppearedAt(pod: Pod, inventory: InventoryView): number {
  let latest = 0;
  const seen = (kind: "ConfigMap" | "Secret", name: string | undefined) => {
    if (!name || !inventory.watches(kind)) return;
    const object = inventory.get(kind, pod.metadata.namespace, name);
    if (object) latest = Math.max(latest, parseTime(object.metadata.creationTimestamp, 0));
  };
  for (const r of configReferences(pod.spec)) seen(r.kind, r.name);
  return latest;
}
