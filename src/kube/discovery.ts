import type { KubeConnection } from "./connection.ts";
import { KubeError } from "./errors.ts";

/** One listable and watchable resource the API server serves, at its group's preferred version. */
export interface ServedResource {
  readonly group: string;
  readonly version: string;
  /** Plural resource name (`pods`). */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

/** What discovery found: the resources, and the groups whose discovery failed (each with why). */
export interface DiscoveryResult {
  readonly resources: readonly ServedResource[];
  readonly failedGroups: readonly { readonly group: string; readonly message: string }[];
}

/**
 * Discovers every API group and version the server serves (spec 1.1, 5.5 full mode): `/api/v1`, then each
 * group of `/apis` at its preferred version, at most `concurrency` requests at a time. Keeps resources with
 * both `list` and `watch`, never subresources. A group whose document fails (an aggregated API that is down)
 * is reported, not fatal. Throws KubeError only when the core API itself cannot be read.
 */
export async function discoverResources(
  connection: KubeConnection,
  options: { signal?: AbortSignal; concurrency?: number } = {},
): Promise<DiscoveryResult> {
  const core = await connection.getJson<ResourceList>("/api/v1", options.signal);
  const resources: ServedResource[] = [...fromList("", "v1", core)];
  const failedGroups: { group: string; message: string }[] = [];
  const groups = await connection.getJson<{
    groups: { name: string; preferredVersion?: { version: string }; versions: { version: string }[] }[];
  }>("/apis", options.signal);
  const queue = groups.groups.map((g) => ({
    group: g.name,
    version: g.preferredVersion?.version ?? g.versions[0]?.version ?? "",
  }));
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      try {
        const list = await connection.getJson<ResourceList>(`/apis/${next.group}/${next.version}`, options.signal);
        resources.push(...fromList(next.group, next.version, list));
      } catch (error) {
        failedGroups.push({ group: next.group, message: error instanceof KubeError ? error.message : String(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 8) }, worker));
  resources.sort((a, b) => `${a.group}/${a.resource}`.localeCompare(`${b.group}/${b.resource}`));
  return { resources, failedGroups };
}

// --- internal ---

interface ResourceList {
  resources: { name: string; kind: string; namespaced: boolean; verbs: string[] }[];
}

function fromList(group: string, version: string, list: ResourceList): ServedResource[] {
  return (list.resources ?? [])
    .filter((r) => !r.name.includes("/") && r.verbs.includes("list") && r.verbs.includes("watch"))
    .map((r) => ({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced }));
}
