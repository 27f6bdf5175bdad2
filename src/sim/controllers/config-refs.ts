import type { KubeObject } from "../store.ts";
import type { ControllerApi } from "./api.ts";

/** Why a pod's containers cannot start yet: a referenced ConfigMap or Secret (or key) that does not exist. */
export interface MissingConfig {
  /** `CreateContainerConfigError` (env) or `FailedMount` (volume: the pod stays ContainerCreating). */
  readonly reason: "CreateContainerConfigError" | "FailedMount";
  readonly message: string;
}

/**
 * The first missing ConfigMap or Secret the pod needs, in the kubelet's words, or undefined. References marked
 * `optional: true` never block, as on a real node, nor does a volume no container mounts (a real kubelet's volume
 * manager skips it: found on the real node, issue 50).
 */
export function missingConfig(api: ControllerApi, pod: KubeObject): MissingConfig | undefined {
  const ns = pod.metadata.namespace;
  const lookup = (kind: "ConfigMap" | "Secret", name: string) => api.get(kind, ns, name);
  const noun = (kind: string) => (kind === "ConfigMap" ? "configmap" : "secret");
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    for (const env of c.env ?? []) {
      const ref = env.valueFrom?.configMapKeyRef ?? env.valueFrom?.secretKeyRef;
      if (!ref || ref.optional) continue;
      const kind = env.valueFrom?.configMapKeyRef ? "ConfigMap" : "Secret";
      const found = lookup(kind, ref.name);
      if (!found) return { reason: "CreateContainerConfigError", message: `${noun(kind)} "${ref.name}" not found` };
      const data = { ...(found.data ?? {}), ...(found.binaryData ?? {}), ...(found.stringData ?? {}) };
      if (!(ref.key in data))
        return {
          reason: "CreateContainerConfigError",
          message: `couldn't find key ${ref.key} in ${kind} ${ns}/${ref.name}`,
        };
    }
    for (const from of c.envFrom ?? []) {
      const ref = from.configMapRef ?? from.secretRef;
      if (!ref || ref.optional) continue;
      const kind = from.configMapRef ? "ConfigMap" : "Secret";
      if (!lookup(kind, ref.name))
        return { reason: "CreateContainerConfigError", message: `${noun(kind)} "${ref.name}" not found` };
    }
  }
  // A kubelet sets up only the volumes a container mounts: another one blocks nothing, whatever it names.
  const used = new Set<string>();
  for (const c of [
    ...(pod.spec?.initContainers ?? []),
    ...(pod.spec?.containers ?? []),
    ...(pod.spec?.ephemeralContainers ?? []),
  ])
    for (const m of [...(c.volumeMounts ?? []), ...(c.volumeDevices ?? [])]) used.add(m.name);
  for (const v of pod.spec?.volumes ?? []) {
    if (!used.has(v.name)) continue;
    // A projected volume's sources too (a service-account volume projects the root CA ConfigMap, which a new
    // namespace has a moment after it exists: seen on the real node).
    for (const source of v.projected?.sources ?? []) {
      const projected = source.configMap ?? source.secret;
      if (!projected?.name || projected.optional) continue;
      const kind = source.configMap ? "ConfigMap" : "Secret";
      if (!lookup(kind, projected.name))
        return {
          reason: "FailedMount",
          message: `MountVolume.SetUp failed for volume "${v.name}" : ${noun(kind)} "${projected.name}" not found`,
        };
    }
    const ref = v.configMap ?? v.secret;
    if (!ref || ref.optional) continue;
    const kind = v.configMap ? "ConfigMap" : "Secret";
    const name = v.configMap ? ref.name : ref.secretName;
    if (name && !lookup(kind, name))
      return {
        reason: "FailedMount",
        message: `MountVolume.SetUp failed for volume "${v.name}" : ${noun(kind)} "${name}" not found`,
      };
  }
  return undefined;
}
