import { jsonPatch, mergePatch, strategicMergePatch } from "./patch.ts";
import type { ResourceType } from "./resources.ts";
import { badRequest, failure } from "./status.ts";
import type { KubeObject, ObjectStore } from "./store.ts";

/** The kinds with a `scale` subresource (autoscaling/v1 Scale), as kube-apiserver v1.32 serves them. */
export const SCALABLE = new Set(["Deployment", "ReplicaSet", "StatefulSet"]);

/** The autoscaling/v1 Scale of a workload, in kube-apiserver's shape (conformance: controllers/60-*). */
export function scaleOf(object: KubeObject): KubeObject {
  const labels = object.spec?.selector?.matchLabels ?? {};
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: object.metadata.name,
      namespace: object.metadata.namespace,
      uid: object.metadata.uid,
      resourceVersion: object.metadata.resourceVersion,
      creationTimestamp: object.metadata.creationTimestamp,
    },
    spec: { replicas: object.spec?.replicas ?? 1 },
    status: {
      replicas: object.status?.replicas ?? 0,
      selector: Object.entries(labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(","),
    },
  };
}

/**
 * GET, PUT or PATCH of `<workload>/scale` (what `kubectl scale` sends: a merge patch of `spec.replicas`). Writes
 * the workload's `spec.replicas` and answers the new Scale. Throws ApiError 400/404/409/415 as the apiserver does.
 */
export function serveScale(
  store: ObjectStore,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  method: string,
  body?: { contentType: string; value: unknown },
): KubeObject {
  const current = store.get(type, namespace, name);
  if (method === "GET") return scaleOf(current);
  let wanted: KubeObject;
  const scale = scaleOf(current);
  if (method === "PUT") wanted = body?.value as KubeObject;
  else if (body?.contentType === "application/merge-patch+json") wanted = mergePatch(scale, body.value) as KubeObject;
  else if (body?.contentType === "application/strategic-merge-patch+json")
    wanted = strategicMergePatch(scale, body.value) as KubeObject;
  else if (body?.contentType === "application/json-patch+json") wanted = jsonPatch(scale, body.value) as KubeObject;
  else throw failure(415, "UnsupportedMediaType", "415: Unsupported Media Type", {});
  const replicas = wanted?.spec?.replicas;
  if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0)
    throw badRequest(`Scale.autoscaling "${name}" is invalid: spec.replicas: must be a non-negative integer`);
  const rv = wanted?.metadata?.resourceVersion;
  const updated = store.update(type, namespace, name, {
    ...current,
    metadata: { ...current.metadata, resourceVersion: rv ?? current.metadata.resourceVersion },
    spec: { ...current.spec, replicas },
  });
  return scaleOf(updated);
}
