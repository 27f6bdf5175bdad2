/**
 * The MonConfig CustomResourceDefinition (spec 2.5, 7.2), generated from the configuration's JSON Schema
 * into deploy/crd (scripts/gen-deploy.ts), so the overlay's schema is never written twice. Group `mon.io` (the
 * group of mon's annotations, `mon.io/owner`); `v1beta1` is stored, `v1alpha1` is served, deprecated, with the
 * same schema (objects written as v1alpha1 are kept and served as v1beta1).
 */

import { CRD_GROUP, NOT_IN_OVERLAY } from "../config/overlay.ts";

export { CRD_GROUP };

/** Rules JSON Schema cannot state, as CEL validations by dotted key. */
const VALIDATIONS: Record<string, { rule: string; message: string }[]> = {
  resyncSeconds: [{ rule: "self == 0 || self >= 30", message: "must be 0 (off) or at least 30" }],
};

type Schema = Record<string, unknown>;

/**
 * The CRD of MonConfig from the configuration's JSON Schema (draft-07, as deploy/config.schema.json).
 * The result is a structural schema as apiextensions.k8s.io/v1 requires: defaults are removed (an overlay
 * sets only what it changes; the mounted file and the built-in defaults fill the rest), `required` is kept
 * only inside list items, `additionalProperties` only where there are no `properties`, and keywords the API
 * server does not know (`propertyNames`, `format`, `x-mon-*`) are dropped.
 */
export function monConfigCrd(configSchema: Schema): object {
  const spec = structural(without(configSchema, NOT_IN_OVERLAY), "", false);
  const schema = {
    openAPIV3Schema: {
      type: "object",
      description: "An overlay of mon's configuration: its spec is merged over the mounted configuration file.",
      properties: {
        spec,
        status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      },
    },
  };
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `monconfigs.${CRD_GROUP}`, labels: { "app.kubernetes.io/name": "mon" } },
    spec: {
      group: CRD_GROUP,
      scope: "Namespaced",
      names: {
        plural: "monconfigs",
        singular: "monconfig",
        kind: "MonConfig",
        listKind: "MonConfigList",
        shortNames: ["mc"],
      },
      versions: [
        { name: "v1beta1", served: true, storage: true, schema, subresources: { status: {} } },
        {
          name: "v1alpha1",
          served: true,
          storage: false,
          deprecated: true,
          deprecationWarning: `${CRD_GROUP}/v1alpha1 MonConfig is deprecated; use ${CRD_GROUP}/v1beta1`,
          // A copy: one object twice would be written as a YAML anchor and alias.
          schema: structuredClone(schema),
          subresources: { status: {} },
        },
      ],
    },
  };
}

// --- internal ---

/** `schema` without the dotted keys listed. */
function without(schema: Schema, keys: readonly string[]): Schema {
  const copy = structuredClone(schema);
  for (const key of keys) {
    const path = key.split(".");
    let node = copy;
    for (const part of path.slice(0, -1)) node = (node.properties as Record<string, Schema>)[part]!;
    delete (node.properties as Record<string, Schema>)[path.at(-1)!];
    if (Array.isArray(node.required)) node.required = node.required.filter((r) => r !== path.at(-1));
  }
  return copy;
}

function structural(node: Schema, key: string, inItems: boolean): Schema {
  const out: Schema = {};
  for (const [k, value] of Object.entries(node)) {
    if (
      k === "default" ||
      k === "$schema" ||
      k === "$id" ||
      k === "propertyNames" ||
      k === "format" ||
      k.startsWith("x-mon-")
    )
      continue;
    if (k === "required" && !inItems) continue;
    if (k === "properties") {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Schema>).map(([name, child]) => [
          name,
          structural(child, key ? `${key}.${name}` : name, inItems),
        ]),
      );
    } else if (k === "items") out.items = structural(value as Schema, `${key}[]`, true);
    else if (k === "additionalProperties") {
      if (typeof value === "object" && !node.properties)
        out.additionalProperties = structural(value as Schema, `${key}.*`, inItems);
    } else out[k] = value;
  }
  if (out.type === "object" && !out.properties && !out.additionalProperties)
    out["x-kubernetes-preserve-unknown-fields"] = true;
  if (VALIDATIONS[key]) out["x-kubernetes-validations"] = VALIDATIONS[key];
  return out;
}
