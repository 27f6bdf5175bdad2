import type { InventoryView } from "../model/inventory.ts";
import type { Annotated } from "../model/kube.ts";
import type { ObjectRef } from "../model/object-ref.ts";

/** The label (then annotation) naming who owns a workload or namespace (spec 2.7). */
export const OWNER_KEY = "mon.io/owner";

/**
 * The incident owner (spec 2.6): `mon.io/owner` as a label, then as an annotation, on the root object, then
 * up its owner chain (Pod → ReplicaSet → Deployment), then on its namespace; undefined when none says.
 * Pure.
 */
export function ownerOf(root: ObjectRef, inventory: InventoryView): string | undefined {
  const object = inventory.get(root.kind, root.namespace, root.name);
  const chain: Annotated[] = object ? [object, ...inventory.ownerChain(object)] : [];
  const namespace = root.namespace ? inventory.get("Namespace", undefined, root.namespace) : undefined;
  for (const o of namespace ? [...chain, namespace] : chain) {
    const value = o.metadata?.labels?.[OWNER_KEY] ?? o.metadata?.annotations?.[OWNER_KEY];
    if (typeof value === "string" && value.trim()) return value.trim();
  }
  return undefined;
}
