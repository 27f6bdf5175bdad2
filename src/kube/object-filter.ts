import { createHash } from "node:crypto";
import type { KubeObject } from "../model/inventory.ts";

/** Keeps only `apiVersion`, `kind` and `metadata`: what mon needs of kinds it has no detector for (spec 5.5 "metadata is enough"). */
export function metadataOnly(object: KubeObject): KubeObject {
  return { apiVersion: object.apiVersion, kind: object.kind, metadata: object.metadata };
}

/**
 * Replaces every Secret value with its SHA-256 (hex) so values are never stored (spec 2.1 watch.secrets),
 * while a change of a value stays visible. `stringData` (never returned by the API server) is dropped.
 */
export function hashSecretValues(secret: KubeObject): KubeObject {
  const data = secret.data as Record<string, string> | undefined;
  const { stringData: _dropped, data: _data, ...rest } = secret;
  if (!data) return rest;
  return {
    ...rest,
    data: Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, `sha256:${createHash("sha256").update(String(v)).digest("hex")}`]),
    ),
  };
}
