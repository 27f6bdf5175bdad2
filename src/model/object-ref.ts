/** A reference to one Kubernetes object. `namespace` is absent for cluster-scoped kinds (Node, Namespace). */
export interface ObjectRef {
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly uid?: string;
}

/** Stable string key of a reference: `Kind/namespace/name` (`Kind//name` when cluster-scoped). */
export function refKey(ref: ObjectRef): string {
  return `${ref.kind}/${ref.namespace ?? ""}/${ref.name}`;
}

/** Human form of a reference as engineers type it: `deployment shop/api`, `node worker-3`. */
export function refLabel(ref: ObjectRef): string {
  const where = ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
  return `${ref.kind.toLowerCase()} ${where}`;
}
