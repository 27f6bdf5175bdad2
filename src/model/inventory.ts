/** A Kubernetes object as served by the API (JSON). */
export type KubeObject = Record<string, any>;

/**
 * The read side of the Inventory (ARCHITECTURE.md kube/): what detectors and correlation may look at.
 * Implemented by kube/inventory.ts; tests build one from plain objects.
 */
export interface InventoryView {
  /** Every cached object of a kind (`Pod`, `Node`, `Deployment`, ...). */
  list(kind: string): readonly KubeObject[];
  /** One object by kind, namespace (undefined for cluster-scoped) and name. */
  get(kind: string, namespace: string | undefined, name: string): KubeObject | undefined;
  /** Pods whose `spec.nodeName` is `node`. */
  podsOnNode(node: string): readonly KubeObject[];
  /** The controller chain above an object, nearest first (Pod → ReplicaSet → Deployment); stops at an owner not in the cache. */
  ownerChain(object: KubeObject): readonly KubeObject[];
}
