import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import * as models from "@kubernetes/client-node/dist/gen/models/ObjectSerializer.js";
import { parseAllDocuments } from "yaml";
import type { PolicyRule } from "../deploy/rbac.ts";
import type { SimRule } from "../sim/authz.ts";

/** A rendered Kubernetes object (loosely typed: the tests read what they check). */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [key: string]: unknown;
}

/** The repository's kustomize tree. */
export const KUSTOMIZE = join(import.meta.dirname, "..", "..", "deploy", "kustomize");

/**
 * Renders the base with the given components (names of deploy/kustomize/components/*), in that order, with
 * `kubectl kustomize` as a user's overlay would. Throws with kustomize's message when rendering fails.
 */
export function renderVariant(components: readonly string[]): Manifest[] {
  return renderOverlay(
    [
      "apiVersion: kustomize.config.k8s.io/v1beta1",
      "kind: Kustomization",
      "resources:",
      "  - ../mon/deploy/kustomize/base",
      ...(components.length
        ? ["components:", ...components.map((c) => `  - ../mon/deploy/kustomize/components/${c}`)]
        : []),
      "",
    ].join("\n"),
  );
}

/**
 * Renders a user's overlay as docs/install.md writes it — a `kustomization.yaml` next to a copy of mon, its
 * paths starting `../mon/deploy/kustomize` — against this repository's tree, with `kubectl kustomize`.
 * Throws with kustomize's message when rendering fails.
 */
export function renderOverlay(kustomization: string): Manifest[] {
  const dir = mkdtempSync(join(tmpdir(), "mon-overlay-"));
  // Relative: kustomize refuses absolute roots.
  writeFileSync(
    join(dir, "kustomization.yaml"),
    kustomization.replaceAll("../mon/deploy/kustomize", relative(dir, KUSTOMIZE)),
  );
  const text = execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8" });
  return parseAllDocuments(text).map((d) => d.toJS() as Manifest);
}

/**
 * Fields of `object` that its kind's typed model (the Kubernetes OpenAPI types of @kubernetes/client-node)
 * does not know, as JSON paths: what kube-apiserver's strict field validation would reject. Throws when the
 * kind itself is unknown to the model.
 */
export function unknownFields(object: Manifest): string[] {
  const version = object.apiVersion.split("/").pop()!;
  const type = `V1${object.kind}`;
  if (version !== "v1" || !(type in models)) throw new Error(`no typed model for ${object.apiVersion} ${object.kind}`);
  const round = models.ObjectSerializer.serialize(models.ObjectSerializer.deserialize(object, type, ""), type, "");
  const missing: string[] = [];
  const walk = (a: unknown, b: unknown, path: string) => {
    if (a === null || typeof a !== "object") return;
    if (b === null || typeof b !== "object") {
      missing.push(path);
      return;
    }
    for (const [k, v] of Object.entries(a)) {
      if (!(k in b)) missing.push(`${path}.${k}`);
      else walk(v, (b as Record<string, unknown>)[k], `${path}.${k}`);
    }
  };
  walk(object, round, "");
  return missing;
}

/**
 * What the rendered RBAC grants the ServiceAccount `namespace/name`, as simulator rules: every ClusterRole
 * bound by a ClusterRoleBinding, every Role bound by a RoleBinding (in the binding's namespace).
 */
export function grantsOf(objects: readonly Manifest[], namespace: string, name: string): SimRule[] {
  type Binding = Manifest & {
    roleRef: { kind: string; name: string };
    subjects?: { kind: string; name: string; namespace?: string }[];
  };
  type Role = Manifest & { rules?: PolicyRule[] };
  const boundHere = (b: Binding) =>
    (b.subjects ?? []).some((s) => s.kind === "ServiceAccount" && s.name === name && s.namespace === namespace);
  const find = (kind: string, roleName: string, ns?: string) =>
    objects.find((o) => o.kind === kind && o.metadata.name === roleName && o.metadata.namespace === ns) as
      | Role
      | undefined;
  const rules: SimRule[] = [];
  for (const b of objects.filter((o) => o.kind === "ClusterRoleBinding" || o.kind === "RoleBinding") as Binding[]) {
    if (!boundHere(b)) continue;
    const ns = b.kind === "RoleBinding" ? b.metadata.namespace : undefined;
    const role = find(b.roleRef.kind, b.roleRef.name, b.roleRef.kind === "Role" ? ns : undefined);
    for (const r of role?.rules ?? [])
      rules.push({
        groups: r.apiGroups ?? [],
        resources: r.resources ?? [],
        verbs: r.verbs,
        ...(ns ? { namespaces: [ns] } : {}),
        ...(r.resourceNames ? { names: r.resourceNames } : {}),
        ...(r.nonResourceURLs ? { paths: r.nonResourceURLs } : {}),
      });
  }
  return rules;
}
