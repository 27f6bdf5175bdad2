import { SCALABLE } from "./scale.ts";
import { apiVersionOf, type TypeRegistry } from "./resources.ts";

/** `/version` of the simulator: it speaks kube-apiserver v1.32. */
export const VERSION_INFO = {
  major: "1",
  minor: "32",
  gitVersion: "v1.32.13-mon-sim",
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
  buildDate: "2026-11-22T00:00:00Z",
  goVersion: "go1.23.5",
  compiler: "gc",
  platform: "linux/amd64",
};

/** `GET /api`: the core APIVersions. */
export function apiVersions(host: string) {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: host }],
  };
}

/** `GET /apis`: the APIGroupList of every named group served. */
export function apiGroupList(registry: TypeRegistry) {
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: registry
      .groupVersions()
      .filter((g) => g.group)
      .map((g) => groupEntry(g.group, g.versions)),
  };
}

/** `GET /apis/<group>`: one APIGroup, or undefined when the group is not served. */
export function apiGroup(registry: TypeRegistry, group: string) {
  const found = registry.groupVersions().find((g) => g.group === group);
  return found ? { kind: "APIGroup", apiVersion: "v1", ...groupEntry(found.group, found.versions) } : undefined;
}

/** `GET /api/v1` or `/apis/<group>/<version>`: the APIResourceList with each resource and its `status` subresource. */
export function apiResourceList(registry: TypeRegistry, group: string, version: string) {
  const types = registry.all().filter((t) => t.group === group && t.version === version);
  if (types.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const t of [...types].sort((a, b) => a.name.localeCompare(b.name))) {
    resources.push({
      name: t.name,
      singularName: t.singularName,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: [...t.verbs],
      ...(t.shortNames ? { shortNames: [...t.shortNames] } : {}),
      ...(t.categories ? { categories: [...t.categories] } : {}),
    });
    if (t.status)
      resources.push({
        name: `${t.name}/status`,
        singularName: "",
        namespaced: t.namespaced,
        kind: t.kind,
        verbs: ["get", "patch", "update"],
      });
    if (SCALABLE.has(t.kind))
      resources.push({
        name: `${t.name}/scale`,
        singularName: "",
        namespaced: t.namespaced,
        group: "autoscaling",
        version: "v1",
        kind: "Scale",
        verbs: ["get", "patch", "update"],
      });
  }
  const groupVersion = apiVersionOf(types[0]!);
  return group
    ? { kind: "APIResourceList", apiVersion: "v1", groupVersion, resources }
    : { kind: "APIResourceList", groupVersion, resources };
}

// --- internal ---

function groupEntry(group: string, versions: readonly string[]) {
  const entries = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: entries, preferredVersion: entries[0]! };
}
