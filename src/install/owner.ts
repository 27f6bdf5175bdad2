import type { KubeConnection } from "../kube/connection.ts";
import { describeObject, type ObjectName, readObject } from "./apply.ts";
import type { InstallObject } from "./plan.ts";

/** Who manages an object that `mon install` did not write, and the command that owns it. */
export interface ForeignOwner {
  /** `Helm release mon (namespace mon)`, `kubectl apply`. */
  readonly owner: string;
  /** What changes or removes it: `helm uninstall mon -n mon`. */
  readonly command: string;
}

/**
 * Whether `object` is managed by something other than `mon install` (issue 52 item 11): Helm marks what it
 * installs with `meta.helm.sh/release-name` and `-namespace` (and the chart with `app.kubernetes.io/managed-by:
 * Helm`); `kubectl apply` (also `-k`) leaves `kubectl.kubernetes.io/last-applied-configuration`. `mon install`
 * writes neither, so an object without them is its own (or made by hand). Undefined for an absent object.
 */
export function foreignOwner(object: InstallObject | undefined): ForeignOwner | undefined {
  if (!object) return undefined;
  const annotations: Record<string, string> = object.metadata.annotations ?? {};
  const labels: Record<string, string> = object.metadata.labels ?? {};
  const release = annotations["meta.helm.sh/release-name"];
  if (release) {
    const namespace = annotations["meta.helm.sh/release-namespace"] ?? object.metadata.namespace ?? "default";
    return {
      owner: `Helm release ${release} (namespace ${namespace})`,
      command: `helm uninstall ${release} -n ${namespace}`,
    };
  }
  if (labels["app.kubernetes.io/managed-by"] === "Helm") return { owner: "Helm", command: "helm list -A" };
  if (annotations["kubectl.kubernetes.io/last-applied-configuration"])
    return { owner: "kubectl apply", command: "kubectl delete -k (or -f) with what applied it" };
  return undefined;
}

/**
 * Refuses to write over objects something else manages: reads each of `objects` and throws one Error naming
 * those another tool owns and the command that owns them (nothing is written), e.g. `Deployment mon/mon is
 * managed by Helm release mon (namespace mon): mon install writes nothing over another tool's objects — …
 * (helm uninstall mon -n mon)`.
 */
export async function refuseForeign(connection: KubeConnection, objects: readonly ObjectName[]): Promise<void> {
  const foreign: string[] = [];
  const commands = new Set<string>();
  for (const o of objects) {
    const owner = foreignOwner(await readObject(connection, o));
    if (!owner) continue;
    foreign.push(`${describeObject(o)} is managed by ${owner.owner}`);
    commands.add(owner.command);
  }
  if (!foreign.length) return;
  const shown = foreign.length > 3 ? [...foreign.slice(0, 3), `${foreign.length - 3} more`] : foreign;
  throw new Error(
    `${shown.join("; ")}: mon install writes nothing over another tool's objects — change them with that tool, or remove them first (${[...commands].join("; ")})`,
  );
}
