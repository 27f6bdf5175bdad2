import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { ObjectRef } from "../model/object-ref.ts";

/**
 * The incident a finding has on its own (spec 1.3, rule R8 "workload ← pods"): the top of its object's owner
 * chain (a pod's Deployment through its ReplicaSet), the owner its controller reference names when that owner is
 * already gone from the cache, else the object itself. Pure.
 */
export function workloadRoot(finding: Finding, inventory: InventoryView): ObjectRef {
  const { object } = finding;
  const found = inventory.get(object.kind, object.namespace, object.name);
  const chain = found ? inventory.ownerChain(found) : [];
  const top = chain[chain.length - 1];
  if (!top) {
    // An owner already gone from the cache (a Job deleted before the garbage collector took its pods) is
    // still the root its reference names: its pods do not become incidents of their own for a moment.
    const owner = found?.metadata.ownerReferences?.find(
      (r) => r.controller && typeof r.kind === "string" && typeof r.name === "string",
    );
    if (owner) return { kind: owner.kind, namespace: object.namespace, name: owner.name, uid: owner.uid };
    return object.kind === "Pod"
      ? { kind: "Pod", namespace: object.namespace, name: object.name, uid: object.uid }
      : object;
  }
  return {
    kind: String(top.kind),
    namespace: top.metadata?.namespace,
    name: String(top.metadata?.name),
    uid: top.metadata?.uid,
  };
}
