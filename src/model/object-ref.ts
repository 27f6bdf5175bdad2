/** A reference to one Kubernetes object. `namespace` is absent for cluster-scoped kinds (Node, Namespace). */
export interface ObjectRef {
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly uid?: string;
  /**
   * How a root the correlator made is shown, when its name is an id rather than words (a shared error's
   * normalized line): `error "FATAL: remaining connection slots are reserved…"`. Never part of its key.
   */
  readonly label?: string;
}

/** Stable string key of a reference: `Kind/namespace/name` (`Kind//name` when cluster-scoped). */
export function refKey(ref: ObjectRef): string {
  return `${ref.kind}/${ref.namespace ?? ""}/${ref.name}`;
}

/** Human form of a reference as engineers type it: `deployment shop/api`, `node worker-3`. */
export function refLabel(ref: ObjectRef): string {
  if (ref.label) return ref.label;
  const where = ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
  return `${ref.kind.toLowerCase()} ${where}`;
}

/** The distinct namespaces of a root and its findings' objects, the root's first (a lost node's pods span several). */
export function namespacesOf(
  root: { readonly namespace?: string },
  findings: readonly { readonly object: { readonly namespace?: string } }[],
): string[] {
  const out = new Set<string>();
  if (root.namespace) out.add(root.namespace);
  for (const f of findings) if (f.object.namespace) out.add(f.object.namespace);
  return [...out];
}
