import { admitCustomResource, compileSchemaRules, type SchemaNode } from "./crd-schema.ts";
import { customResourceType, type ResourceType, type TypeRegistry } from "./resources.ts";
import { invalid } from "./status.ts";
import { type KubeObject, type ObjectStore, timestamp } from "./store.ts";

/** The CustomResourceDefinition kind (apiextensions.k8s.io/v1), served by every simulator. */
export const CRD_KIND = "CustomResourceDefinition";

/**
 * Serves CustomResourceDefinitions as kube-apiserver's apiextensions does (recorded in testdata crd/): a
 * definition written through the API is checked (its name is `<plural>.<group>`, exactly one storage version,
 * rules within the simulator's CEL subset), gets `Established` and `NamesAccepted` at once, and each served
 * version appears in discovery; every version reads and writes the same stored objects, shown in its own
 * `apiVersion` (conversion `None`); objects are pruned and validated against their version's schema; deleting
 * the definition deletes its objects and stops serving it.
 */
export function serveCustomResourceDefinitions(store: ObjectStore, registry: TypeRegistry, now: () => number): void {
  store.addAdmission((type, object) => {
    if (type.kind === CRD_KIND && type.group === "apiextensions.k8s.io") return checkDefinition(type, object);
    if (!type.schema) return object;
    const { object: admitted, causes } = admitCustomResource(object, type.schema);
    if (causes.length) throw invalid(type, String(object.metadata?.name ?? ""), causes);
    return admitted;
  });
  let syncing = false;
  store.onChange((kind) => {
    if (kind !== CRD_KIND || syncing) return;
    syncing = true;
    try {
      sync(store, registry, now);
    } finally {
      syncing = false;
    }
  });
}

// --- internal ---

interface Definition {
  group: string;
  scope: "Namespaced" | "Cluster";
  names: {
    plural: string;
    singular?: string;
    kind: string;
    listKind?: string;
    shortNames?: string[];
    categories?: string[];
  };
  versions: {
    name: string;
    served: boolean;
    storage: boolean;
    deprecated?: boolean;
    deprecationWarning?: string;
    schema?: { openAPIV3Schema?: SchemaNode };
    subresources?: { status?: object };
  }[];
}

function checkDefinition(type: ResourceType, object: KubeObject): KubeObject {
  const name = String(object.metadata?.name ?? "");
  const spec = object.spec as Definition | undefined;
  const causes: { field: string; message: string; reason?: string }[] = [];
  if (!spec?.group || !spec.names?.plural || !spec.names?.kind || !Array.isArray(spec.versions)) {
    causes.push({
      field: "spec",
      message: "Required value: group, names.plural, names.kind and versions are required",
      reason: "FieldValueRequired",
    });
    throw invalid(type, name, causes);
  }
  if (name !== `${spec.names.plural}.${spec.group}`)
    causes.push({
      field: "metadata.name",
      message: `Invalid value: "${name}": must be spec.names.plural+"."+spec.group`,
    });
  if (spec.versions.filter((v) => v.storage).length !== 1)
    causes.push({
      field: "spec.versions",
      message: "Invalid value: must have exactly one version marked as storage version",
    });
  spec.versions.forEach((version, i) => {
    try {
      compileSchemaRules(version.schema?.openAPIV3Schema ?? {});
    } catch (error) {
      causes.push({
        field: `spec.versions[${i}].schema.openAPIV3Schema`,
        message: `Invalid value: ${(error as Error).message}`,
      });
    }
  });
  if (causes.length) throw invalid(type, name, causes);
  return object;
}

function sync(store: ObjectStore, registry: TypeRegistry, now: () => number): void {
  const crdType = registry.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  if (!crdType) return;
  const definitions = store.list(crdType, undefined);
  const present = new Set(definitions.map((d) => String(d.metadata.name)));
  for (const gone of new Set(registry.all().flatMap((t) => (t.definedBy && !present.has(t.definedBy) ? [t] : [])))) {
    if (!gone.storageVersion || gone.storageVersion === gone.version)
      for (const object of store.list(gone, undefined))
        store.delete(gone, object.metadata.namespace, object.metadata.name, { gracePeriodSeconds: 0 });
  }
  for (const t of registry.all()) if (t.definedBy && !present.has(t.definedBy)) registry.removeDefinedBy(t.definedBy);
  for (const definition of definitions) {
    const name = String(definition.metadata.name);
    const spec = definition.spec as Definition;
    const storage = spec.versions.find((v) => v.storage)?.name ?? spec.versions[0]?.name ?? "";
    registry.removeDefinedBy(name);
    for (const version of [...spec.versions]
      .filter((v) => v.served)
      .sort((a, b) => priority(b.name) - priority(a.name))) {
      const base = customResourceType({
        group: spec.group,
        version: version.name,
        plural: spec.names.plural,
        kind: spec.names.kind,
        namespaced: spec.scope !== "Cluster",
        status: Boolean(version.subresources?.status),
      });
      registry.add({
        ...base,
        singularName: spec.names.singular ?? spec.names.kind.toLowerCase(),
        ...(spec.names.shortNames ? { shortNames: spec.names.shortNames } : {}),
        ...(spec.names.categories ? { categories: spec.names.categories } : {}),
        storageVersion: storage,
        ...(version.schema?.openAPIV3Schema ? { schema: version.schema.openAPIV3Schema } : {}),
        ...(version.deprecated
          ? {
              deprecationWarning:
                version.deprecationWarning ?? `${spec.group}/${version.name} ${spec.names.kind} is deprecated`,
            }
          : {}),
        definedBy: name,
      });
    }
    const status = statusOf(definition, spec, storage, now);
    if (JSON.stringify(status) !== JSON.stringify(definition.status))
      store.update(crdType, undefined, name, { status }, "status");
  }
}

function statusOf(definition: KubeObject, spec: Definition, storage: string, now: () => number): object {
  const previous = (definition.status?.conditions ?? []) as { type: string; lastTransitionTime?: string }[];
  const since = (type: string) => previous.find((c) => c.type === type)?.lastTransitionTime ?? timestamp(now());
  const stored = new Set<string>([...(definition.status?.storedVersions ?? []), storage]);
  return {
    conditions: [
      {
        type: "NamesAccepted",
        status: "True",
        lastTransitionTime: since("NamesAccepted"),
        reason: "NoConflicts",
        message: "no conflicts found",
      },
      {
        type: "Established",
        status: "True",
        lastTransitionTime: since("Established"),
        reason: "InitialNamesAccepted",
        message: "the initial names have been accepted",
      },
    ],
    acceptedNames: {
      ...spec.names,
      singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
      listKind: spec.names.listKind ?? `${spec.names.kind}List`,
    },
    storedVersions: [...stored],
  };
}

/** Kubernetes' version priority: GA before beta before alpha, higher numbers first. */
function priority(version: string): number {
  const match = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(version);
  if (!match) return -1;
  const stage = match[2] === "alpha" ? 1 : match[2] === "beta" ? 2 : 3;
  return stage * 1_000_000 + Number(match[1]) * 1_000 + Number(match[3] ?? 0);
}
