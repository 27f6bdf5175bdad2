import type { InventoryView } from "../model/inventory.ts";
import type { Condition } from "../model/kube.ts";
import type { ObjectRef } from "../model/object-ref.ts";

/**
 * What is true of an incident's root now that it resolved, in plain words for the resolve message (rule
 * "a resolve says what changed"): `node Ready again; 3 pods running`, `2/2 replicas available`,
 * `2 ready endpoints`, `exists now`; for a shared root outside the cluster (an endpoint, an error), what its
 * `affected` workloads are now (`deployment shop/checkout 2/2 replicas available`). Undefined when the cache
 * says nothing useful. Pure.
 */
export function recoveryOf(
  root: ObjectRef,
  inventory: InventoryView,
  affected: readonly ObjectRef[] = [],
): string | undefined {
  const own = rootRecovery(root, inventory);
  if (own !== undefined || affected.length === 0) return own;
  const workloads = affected
    .map((w) => {
      const now = rootRecovery(w, inventory);
      return now ? `${w.kind.toLowerCase()} ${w.namespace ? `${w.namespace}/` : ""}${w.name} ${now}` : undefined;
    })
    .filter((line): line is string => line !== undefined);
  return workloads.length ? workloads.slice(0, 3).join("; ") : undefined;
}

// --- internal ---

function rootRecovery(root: ObjectRef, inventory: InventoryView): string | undefined {
  const { kind, namespace, name } = root;
  switch (kind) {
    case "Node": {
      const node = inventory.get("Node", undefined, name);
      if (!node) return "node removed";
      if (ready(node.status?.conditions) !== "True") return undefined;
      const running = inventory
        .podsOnNode(name)
        .filter((p) => p.status?.phase === "Running" && ready(p.status?.conditions) === "True").length;
      return running ? `node Ready again; ${running} pod${running === 1 ? "" : "s"} running` : "node Ready again";
    }
    case "Deployment":
    case "StatefulSet": {
      const w = inventory.get(kind, namespace, name);
      if (!w) return "removed";
      const wanted = w.spec?.replicas ?? 1;
      return `${w.status?.availableReplicas ?? 0}/${wanted} replica${wanted === 1 ? "" : "s"} available`;
    }
    case "DaemonSet": {
      const d = inventory.get("DaemonSet", namespace, name);
      return d ? `${d.status?.numberReady ?? 0}/${d.status?.desiredNumberScheduled ?? 0} pods ready` : "removed";
    }
    case "Pod": {
      const p = inventory.get("Pod", namespace, name);
      if (!p) return "pod gone (replaced or deleted)";
      return ready(p.status?.conditions) === "True" ? "pod running and ready" : undefined;
    }
    case "Service": {
      const slices = inventory
        .list("EndpointSlice")
        .filter(
          (s) => s.metadata.namespace === namespace && s.metadata.labels?.["kubernetes.io/service-name"] === name,
        );
      const endpoints = slices.flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions?.ready !== false).length;
      // No ready endpoint yet (its pods are starting) is nothing to report as the change.
      return endpoints ? `${endpoints} ready endpoint${endpoints === 1 ? "" : "s"}` : undefined;
    }
    case "ConfigMap":
    case "Secret":
    case "ServiceAccount":
      return inventory.get(kind, namespace, name) ? `${kind} ${name} exists now` : undefined;
    default:
      return undefined;
  }
}

function ready(conditions: readonly Condition[] | undefined): string | undefined {
  return conditions?.find((c) => c.type === "Ready")?.status;
}
