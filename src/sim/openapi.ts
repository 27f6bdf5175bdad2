import { createHash } from "node:crypto";
import { apiVersionOf, type ResourceType, type TypeRegistry } from "./resources.ts";

/**
 * `GET /openapi/v3`: the index of per-group-version documents. kubectl reads it to learn that the server
 * validates fields itself (`fieldValidation` on PATCH), and then skips client-side schema validation.
 */
export function openApiIndex(registry: TypeRegistry): { paths: Record<string, { serverRelativeURL: string }> } {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const { group, version } of registry.groups()) {
    const key = group ? `apis/${group}/${version}` : `api/${version}`;
    const hash = createHash("sha512")
      .update(JSON.stringify(openApiDocument(registry, group, version)))
      .digest("hex")
      .toUpperCase();
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  return { paths };
}

/**
 * One OpenAPI v3 document for a group-version: for every resource, its item path with a PATCH operation
 * tagged with `x-kubernetes-group-version-kind` and the `fieldValidation` query parameter. Schemas are
 * not included (documented in docs/simulator.md); kubectl then computes patches from its built-in types.
 */
export function openApiDocument(
  registry: TypeRegistry,
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const types = registry.all().filter((t) => t.group === group && t.version === version);
  if (types.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  for (const t of types) {
    const gvk = { group: t.group, version: t.version, kind: t.kind };
    const operation = (action: string) => ({
      operationId: `${action}${t.kind}`,
      "x-kubernetes-action": action,
      "x-kubernetes-group-version-kind": gvk,
      parameters: [
        { name: "dryRun", in: "query", schema: { type: "string", uniqueItems: true } },
        { name: "fieldManager", in: "query", schema: { type: "string", uniqueItems: true } },
        { name: "fieldValidation", in: "query", schema: { type: "string", uniqueItems: true } },
      ],
      responses: { "200": { description: "OK" } },
    });
    paths[itemPath(t)] = {
      get: operation("get"),
      put: operation("put"),
      patch: operation("patch"),
      delete: operation("delete"),
    };
    paths[collectionPath(t)] = { get: operation("list"), post: operation("post") };
  }
  return { openapi: "3.0.0", info: { title: "Kubernetes", version: "v1.32.13" }, paths, components: { schemas: {} } };
}

// --- internal ---

function collectionPath(t: ResourceType): string {
  const prefix = t.group ? `/apis/${apiVersionOf(t)}` : `/api/${t.version}`;
  return t.namespaced ? `${prefix}/namespaces/{namespace}/${t.name}` : `${prefix}/${t.name}`;
}

function itemPath(t: ResourceType): string {
  return `${collectionPath(t)}/{name}`;
}
