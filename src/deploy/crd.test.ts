import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { type Manifest, unknownFields } from "../testing/manifests.ts";

/**
 * The MonConfig CRD (deploy/crd, generated from the configuration schema) against apiextensions.k8s.io/v1's
 * rules for structural schemas, and what the overlay may and may not set (spec 2.5).
 */
const crd = parse(
  readFileSync(join(import.meta.dirname, "..", "..", "deploy", "crd", "monconfigs.mon.io.yaml"), "utf8"),
);
type Node = Record<string, any>;
const specOf = (version: string): Node =>
  crd.spec.versions.find((v: Node) => v.name === version).schema.openAPIV3Schema.properties.spec;

/** Violations of the structural-schema rules kube-apiserver enforces on a CRD, by JSON path. */
function structuralProblems(node: Node, path = "spec"): string[] {
  const out: string[] = [];
  if (!node.type && !node["x-kubernetes-preserve-unknown-fields"] && !node["x-kubernetes-int-or-string"])
    out.push(`${path}: no type`);
  if (node.properties && node.additionalProperties !== undefined)
    out.push(`${path}: properties and additionalProperties`);
  for (const k of ["default", "$ref", "anyOf", "oneOf", "propertyNames", "$schema"])
    if (k in node) out.push(`${path}: ${k}`);
  for (const [name, child] of Object.entries(node.properties ?? {}))
    out.push(...structuralProblems(child as Node, `${path}.${name}`));
  if (node.items) out.push(...structuralProblems(node.items, `${path}[]`));
  if (typeof node.additionalProperties === "object")
    out.push(...structuralProblems(node.additionalProperties, `${path}.*`));
  return out;
}

describe("the MonConfig CRD (deploy/crd/monconfigs.mon.io.yaml)", () => {
  test("is a valid CustomResourceDefinition: every field known to the typed model, a structural schema", () => {
    expect(unknownFields(crd as Manifest)).toEqual([]);
    expect(structuralProblems(specOf("v1beta1"))).toEqual([]);
  });

  test("v1beta1 is stored; v1alpha1 is served, deprecated, with the same schema", () => {
    expect(crd.spec.versions.map((v: Node) => [v.name, v.served, v.storage, Boolean(v.deprecated)])).toEqual([
      ["v1beta1", true, true, false],
      ["v1alpha1", true, false, true],
    ]);
    expect(specOf("v1alpha1")).toEqual(specOf("v1beta1"));
    expect(crd.spec.scope).toBe("Namespaced");
  });

  test("the overlay cannot set providers, credentials, the health server, kubelet TLS or the license", () => {
    const spec = specOf("v1beta1").properties;
    for (const key of ["alert", "healthCheck", "license", "crd"]) expect(spec[key], key).toBeUndefined();
    expect(spec.heartbeatMonitor.properties.url).toBeUndefined();
    expect(spec.heartbeatMonitor.properties.interval).toMatchObject({ type: "integer", minimum: 0 });
    expect(spec.kubelet?.properties?.insecureSkipVerify).toBeUndefined();
    // What it can set, with the rules the schema states.
    expect(spec.resyncSeconds["x-kubernetes-validations"]).toEqual([
      { rule: "self == 0 || self >= 30", message: "must be 0 (off) or at least 30" },
    ]);
    expect(spec.app.properties.logFormatter.enum).toEqual(["text", "json"]);
  });

  test("no defaults: an overlay changes only what it sets (the file and built-in defaults fill the rest)", () => {
    expect(JSON.stringify(specOf("v1beta1"))).not.toContain('"default"');
  });
});
