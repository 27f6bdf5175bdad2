import { KNOWN_KINDS } from "../../kube/kinds.ts";
import { closestName } from "../../config/unknown-keys.ts";

/** Every name a user may type for a kind, lower case: the kind, its resource (plural), `plural.group`, its short names. */
const ALIASES: ReadonlyMap<string, string> = new Map(
  KNOWN_KINDS.flatMap((k) => [
    [k.kind.toLowerCase(), k.kind],
    [k.resource, k.kind],
    [`${k.resource}.${k.group}`.replace(/\.$/, ""), k.kind],
    ...(k.shortNames ?? []).map((s): [string, string] => [s, k.kind]),
  ]),
);

/** Kinds whose objects have no namespace. */
const CLUSTER_SCOPED: ReadonlySet<string> = new Set(KNOWN_KINDS.filter((k) => k.clusterScoped).map((k) => k.kind));

/** What `mon explain` asks the daemon about, or why it cannot. */
export type ExplainTarget = { readonly key: string } | { readonly error: string };

/**
 * The object a user names to `mon explain` (docs/explain.md), as the daemon keys it (`Kind/namespace/name`,
 * `Kind//name` when cluster-scoped). Accepts kubectl's forms: `KIND/NAMESPACE/NAME`, `KIND/NAME` or `KIND NAME`
 * with `namespace` (`-n`; `default` when absent, as kubectl), the kind by its name, plural, `plural.group` or
 * short name in any letter case (`deploy/shop/web`, `node/worker-3`, `pods api-1 -n shop`). A kind mon does not
 * know, a namespace on a cluster-scoped kind, or a malformed name is an `error` that says why.
 */
export function explainTarget(typed: string, name?: string, namespace?: string): ExplainTarget {
  const parts = name === undefined ? typed.split("/") : [typed, ...name.split("/")];
  if (parts.some((p) => p === "") || parts.length < 2 || parts.length > 3)
    return {
      error: `cannot read "${[typed, name].filter(Boolean).join(" ")}": name it as KIND/NAMESPACE/NAME, KIND/NAME or KIND NAME -n NAMESPACE`,
    };
  const kindTyped = parts[0]!;
  const kind = ALIASES.get(kindTyped.toLowerCase());
  if (!kind) {
    const hint = closestName(kindTyped, [...ALIASES.keys()]);
    return {
      error: `mon knows no kind named "${kindTyped}"${hint ? ` (did you mean ${ALIASES.get(hint)}?)` : ""}: it explains objects of the kinds it watches (${KNOWN_KINDS.map((k) => k.kind).join(", ")})`,
    };
  }
  const scoped = !CLUSTER_SCOPED.has(kind);
  if (parts.length === 3) {
    if (!scoped) return { error: `${kind} objects have no namespace: name it as ${kind}/${parts[2]}` };
    if (namespace !== undefined && namespace !== parts[1])
      return { error: `two namespaces: ${parts[1]} in the name and ${namespace} from -n` };
    return { key: `${kind}/${parts[1]}/${parts[2]}` };
  }
  if (!scoped) {
    if (namespace !== undefined) return { error: `${kind} objects have no namespace: drop -n ${namespace}` };
    return { key: `${kind}//${parts[1]}` };
  }
  return { key: `${kind}/${namespace ?? "default"}/${parts[1]}` };
}
