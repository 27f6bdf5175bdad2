import type { Pod } from "./kube.ts";

/** A pod spec, or a workload's pod template spec, as served. */
export type PodSpec = NonNullable<Pod["spec"]>;

/** One ConfigMap or Secret a pod spec reads, and where: `env X of container c`, `envFrom of container c`, `volume v`. */
export interface ConfigReference {
  readonly kind: "ConfigMap" | "Secret";
  readonly name: string;
  /** The key an env variable reads. */
  readonly key?: string;
  readonly optional: boolean;
  readonly from: string;
  /** Read through a projected volume's source. */
  readonly projected?: boolean;
}

/**
 * Every ConfigMap and Secret reference of a pod spec, in one walk (detect/config-refs.ts, config-fixed.ts and
 * incident/changes.ts read them all through it): each container's `env` and `envFrom` (containers first, then
 * init containers), then the `configMap`, `secret` and projected sources of each volume a container mounts (a
 * kubelet sets up no other). Pure.
 */
export function configReferences(spec: PodSpec | undefined): ConfigReference[] {
  const out: ConfigReference[] = [];
  if (!spec) return out;
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    for (const env of c.env ?? []) {
      const from = `env ${env.name} of container ${c.name}`;
      const s = env.valueFrom?.secretKeyRef;
      if (s?.name) out.push({ kind: "Secret", name: s.name, key: s.key, optional: Boolean(s.optional), from });
      const m = env.valueFrom?.configMapKeyRef;
      if (m?.name) out.push({ kind: "ConfigMap", name: m.name, key: m.key, optional: Boolean(m.optional), from });
    }
    for (const f of c.envFrom ?? []) {
      const from = `envFrom of container ${c.name}`;
      if (f.secretRef?.name)
        out.push({ kind: "Secret", name: f.secretRef.name, optional: Boolean(f.secretRef.optional), from });
      if (f.configMapRef?.name)
        out.push({ kind: "ConfigMap", name: f.configMapRef.name, optional: Boolean(f.configMapRef.optional), from });
    }
  }
  // A kubelet sets up only the volumes a container mounts (its volume manager skips the others): a volume no
  // container uses reads nothing, whatever it names (issue 50, found on a real node).
  const used = new Set<string>();
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? []), ...(spec.ephemeralContainers ?? [])])
    for (const m of [...(c.volumeMounts ?? []), ...(c.volumeDevices ?? [])]) used.add(m.name);
  for (const v of spec.volumes ?? []) {
    if (!used.has(v.name)) continue;
    const from = `volume ${v.name}`;
    if (v.secret?.secretName)
      out.push({ kind: "Secret", name: v.secret.secretName, optional: Boolean(v.secret.optional), from });
    if (v.configMap?.name)
      out.push({ kind: "ConfigMap", name: v.configMap.name, optional: Boolean(v.configMap.optional), from });
    for (const source of v.projected?.sources ?? []) {
      if (source.secret?.name)
        out.push({
          kind: "Secret",
          name: source.secret.name,
          optional: Boolean(source.secret.optional),
          from,
          projected: true,
        });
      if (source.configMap?.name)
        out.push({
          kind: "ConfigMap",
          name: source.configMap.name,
          optional: Boolean(source.configMap.optional),
          from,
          projected: true,
        });
    }
  }
  return out;
}
