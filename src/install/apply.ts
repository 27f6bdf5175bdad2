import type { KubeConnection } from "../kube/connection.ts";
import { INSTANCE_SECRET } from "../license/instance-secret.ts";
import type { InstallObject } from "./plan.ts";

/** Names one object: its kind, name and (for a namespaced kind) namespace. */
export interface ObjectName {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
}

/** What applying one object did. */
export interface Applied {
  readonly object: string;
  readonly result: "created" | "configured" | "unchanged" | "deleted";
}

/** Kinds the installer writes, with their API paths. */
const KINDS: Readonly<
  Record<string, { readonly base: string; readonly plural: string; readonly namespaced: boolean }>
> = {
  Namespace: { base: "/api/v1", plural: "namespaces", namespaced: false },
  ServiceAccount: { base: "/api/v1", plural: "serviceaccounts", namespaced: true },
  Secret: { base: "/api/v1", plural: "secrets", namespaced: true },
  ConfigMap: { base: "/api/v1", plural: "configmaps", namespaced: true },
  Service: { base: "/api/v1", plural: "services", namespaced: true },
  Deployment: { base: "/apis/apps/v1", plural: "deployments", namespaced: true },
  PersistentVolumeClaim: { base: "/api/v1", plural: "persistentvolumeclaims", namespaced: true },
  PodDisruptionBudget: { base: "/apis/policy/v1", plural: "poddisruptionbudgets", namespaced: true },
  NetworkPolicy: { base: "/apis/networking.k8s.io/v1", plural: "networkpolicies", namespaced: true },
  ClusterRole: { base: "/apis/rbac.authorization.k8s.io/v1", plural: "clusterroles", namespaced: false },
  ClusterRoleBinding: { base: "/apis/rbac.authorization.k8s.io/v1", plural: "clusterrolebindings", namespaced: false },
  Role: { base: "/apis/rbac.authorization.k8s.io/v1", plural: "roles", namespaced: true },
  RoleBinding: { base: "/apis/rbac.authorization.k8s.io/v1", plural: "rolebindings", namespaced: true },
  CustomResourceDefinition: {
    base: "/apis/apiextensions.k8s.io/v1",
    plural: "customresourcedefinitions",
    namespaced: false,
  },
};

/** `Kind namespace/name` of an object, as the installer reports it. */
export function describeObject(o: ObjectName): string {
  return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`;
}

/** The API path of one object (or of its collection with `collection`). Throws for a kind the installer does not write. */
export function objectPath(o: ObjectName, collection = false): string {
  const kind = KINDS[o.kind];
  if (!kind) throw new Error(`the installer does not write ${o.kind}`);
  const ns = kind.namespaced ? `/namespaces/${encodeURIComponent(o.metadata.namespace ?? "")}` : "";
  return `${kind.base}${ns}/${kind.plural}${collection ? "" : `/${encodeURIComponent(o.metadata.name)}`}`;
}

/** Reads one object; undefined when it does not exist. Throws Error with the API server's message otherwise. */
export async function readObject(connection: KubeConnection, o: ObjectName) {
  const response = await connection.request(objectPath(o));
  if (response.status === 404) return undefined;
  if (!response.ok) throw await apiError(response, `reading ${describeObject(o)}`);
  return (await response.json()) as InstallObject;
}

/**
 * Creates each object that does not exist and updates each that does (spec 4.4 "applies changes to the managed
 * workload"), in order: Secrets and ConfigMaps are replaced whole (a removed credential is gone), everything
 * else is merge-patched, so what others set (a Service's clusterIP, a scaled Deployment's status) stays. An
 * object the write did not change (`unchanged`: its resourceVersion, or its generation and metadata) is
 * `unchanged`. Throws Error naming the object and
 * the API server's message on the first failure.
 */
export async function applyObjects(connection: KubeConnection, objects: readonly InstallObject[]): Promise<Applied[]> {
  const out: Applied[] = [];
  for (const o of objects) {
    const existing = await readObject(connection, o);
    const name = describeObject(o);
    if (!existing) {
      const response = await send(connection, objectPath(o, true), "POST", o);
      if (!response.ok) throw await apiError(response, `creating ${name}`);
      out.push({ object: name, result: "created" });
      continue;
    }
    const replace = o.kind === "Secret" || o.kind === "ConfigMap";
    const body = replace
      ? { ...o, metadata: { ...o.metadata, resourceVersion: existing.metadata.resourceVersion } }
      : withRemovals(o, existing);
    const response = await send(connection, objectPath(o), replace ? "PUT" : "PATCH", body);
    if (!response.ok) throw await apiError(response, `updating ${name}`);
    const written = (await response.json()) as InstallObject;
    out.push({ object: name, result: unchanged(existing, written) ? "unchanged" : "configured" });
  }
  return out;
}

/**
 * True when the write changed nothing of what mon installs: the same resourceVersion, or — for a kind with a
 * `generation`, whose status a controller may write between mon's read and its patch (a new CRD's conditions,
 * found on a real API server) — the same generation, labels and annotations.
 */
export function unchanged(existing: InstallObject, written: InstallObject): boolean {
  if (written.metadata?.resourceVersion === existing.metadata.resourceVersion) return true;
  const generation = existing.metadata.generation;
  return (
    typeof generation === "number" &&
    written.metadata?.generation === generation &&
    sameRecord(existing.metadata.labels, written.metadata?.labels) &&
    sameRecord(existing.metadata.annotations, written.metadata?.annotations)
  );
}

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const x = Object.entries(a ?? {}).sort(([k], [l]) => k.localeCompare(l));
  const y = Object.entries(b ?? {}).sort(([k], [l]) => k.localeCompare(l));
  return JSON.stringify(x) === JSON.stringify(y);
}

/** Deletes one object; false when it did not exist. Throws Error with the API server's message. */
export async function deleteObject(connection: KubeConnection, o: ObjectName) {
  const response = await connection.request(objectPath(o), { method: "DELETE" });
  if (response.status === 404) return false;
  if (!response.ok) throw await apiError(response, `deleting ${describeObject(o)}`);
  return true;
}

/**
 * Sets `deactivated-at` (RFC 3339, `at`) on the license's instance Secret (docs/license.md): the running leader
 * notices, releases the cluster binding and turns Community. False when there is no instance Secret (no binding).
 */
export async function deactivateLicense(connection: KubeConnection, namespace: string, at: string): Promise<boolean> {
  const target = { kind: "Secret", metadata: { name: INSTANCE_SECRET, namespace } };
  if (!(await readObject(connection, target))) return false;
  const patch = { data: { "deactivated-at": Buffer.from(at, "utf8").toString("base64") } };
  const response = await send(connection, objectPath(target), "PATCH", patch);
  if (!response.ok) throw await apiError(response, `updating Secret ${namespace}/${INSTANCE_SECRET}`);
  return true;
}

/**
 * Clears `deactivated-at` from the instance Secret when a key is added again (docs/license.md): without it, the
 * same key would stay Community. False when there was nothing to clear.
 */
export async function clearDeactivation(connection: KubeConnection, namespace: string): Promise<boolean> {
  const target = { kind: "Secret", metadata: { name: INSTANCE_SECRET, namespace } };
  const secret = await readObject(connection, target);
  if (secret?.data?.["deactivated-at"] === undefined) return false;
  const response = await send(connection, objectPath(target), "PATCH", { data: { "deactivated-at": null } });
  if (!response.ok) throw await apiError(response, `updating Secret ${namespace}/${INSTANCE_SECRET}`);
  return true;
}

// --- internal ---

/**
 * Fields the installer owns but may leave out (a Deployment without HA has no affinity): a merge patch keeps
 * what it does not mention, so a field that is set now and not wanted is patched to null.
 */
const REMOVABLE: Readonly<Record<string, readonly (readonly string[])[]>> = {
  Deployment: [
    ["spec", "template", "spec", "affinity"],
    // The host-network component (`--api-server ""` turns it off).
    ["spec", "template", "spec", "hostNetwork"],
    ["spec", "template", "spec", "dnsPolicy"],
  ],
};

function withRemovals(o: InstallObject, existing: InstallObject): InstallObject {
  const paths = REMOVABLE[o.kind] ?? [];
  const at = (root: unknown, path: readonly string[]) =>
    path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], root);
  const patch = structuredClone(o);
  for (const path of paths) {
    if (at(existing, path) === undefined || at(o, path) !== undefined) continue;
    const parent = at(patch, path.slice(0, -1)) as Record<string, unknown> | undefined;
    if (parent) parent[path.at(-1)!] = null;
  }
  return patch;
}

function send(connection: KubeConnection, path: string, method: string, body: unknown): Promise<Response> {
  return connection.request(path, {
    method,
    headers: { "content-type": method === "PATCH" ? "application/merge-patch+json" : "application/json" },
    body: JSON.stringify(body),
  });
}

async function apiError(response: Response, what: string): Promise<Error> {
  const text = await response.text();
  let message = text.slice(0, 300);
  try {
    message = (JSON.parse(text) as { message?: string }).message ?? message;
  } catch {
    // plain text
  }
  return new Error(`${what}: ${response.status} ${message}`.trim());
}
