/**
 * The guided setup's catalogs (spec 2.4, 4.4, 9.3) read back from their TSV form — deploy/provider-catalog.tsv
 * and deploy/feature-catalog.tsv, as this binary writes them and as the installed release caches them in its
 * ConfigMap — so the installer's questions and `mon install features` come from one format.
 */

/** One option of a provider (a row of the provider catalog). */
export interface CatalogField {
  readonly provider: string;
  readonly kind: string;
  readonly title: string;
  readonly field: string;
  /** `string`, `number`, `boolean`, `map`, `list of string`, `one of a, b` … */
  readonly type: string;
  readonly required: boolean;
  /** A credential: stored in the configuration Secret and referenced as `${file:}`, never in config.yaml. */
  readonly secret: boolean;
  readonly default?: string;
  /** `one_of_<n>:<a>|<b>`: exactly one field of the group is set. */
  readonly choiceGroup?: { readonly id: string; readonly fields: readonly string[] };
  /** Fields this one needs when it is set. */
  readonly requires: readonly string[];
  readonly description: string;
}

/** One provider of the catalog with its fields, in catalog order. */
export interface CatalogProvider {
  readonly name: string;
  readonly kind: string;
  readonly title: string;
  readonly fields: readonly CatalogField[];
}

/** One row of the feature catalog. */
export interface CatalogFeature {
  readonly id: string;
  readonly dependsOn: readonly string[];
  readonly edition: string;
  readonly description: string;
}

/** A provider's choice groups (exactly one field of each is set), each with its fields in catalog order. */
export function choiceGroups(fields: readonly CatalogField[]): CatalogField[][] {
  const groups = new Map<string, CatalogField[]>();
  for (const f of fields) if (f.choiceGroup) groups.set(f.choiceGroup.id, [...(groups.get(f.choiceGroup.id) ?? []), f]);
  return [...groups.values()];
}

/** Parses deploy/provider-catalog.tsv; throws Error naming the line when a row has the wrong number of cells. */
export function parseProviderCatalog(tsv: string): CatalogProvider[] {
  const providers = new Map<string, CatalogProvider & { fields: CatalogField[] }>();
  for (const [i, cells] of rows(tsv, 11)) {
    const [provider, kind, title, field, type, required, secret, fallback, group, requires, description] = cells;
    const [id = "", list = ""] = (group ?? "").split(":");
    const row: CatalogField = {
      provider: provider!,
      kind: kind!,
      title: title!,
      field: field!,
      type: type!,
      required: required === "yes",
      secret: secret === "secret",
      ...(fallback ? { default: fallback } : {}),
      ...(group ? { choiceGroup: { id, fields: list.split("|") } } : {}),
      requires: requires ? requires.split("|") : [],
      description: description ?? "",
    };
    if (!row.provider || !row.field) throw new Error(`provider catalog line ${i}: no provider or field`);
    const found = providers.get(row.provider) ?? { name: row.provider, kind: row.kind, title: row.title, fields: [] };
    found.fields.push(row);
    providers.set(row.provider, found);
  }
  return [...providers.values()];
}

/** Parses deploy/feature-catalog.tsv; throws Error naming the line of a malformed row. */
export function parseFeatureCatalog(tsv: string): CatalogFeature[] {
  return [...rows(tsv, 4)].map(([, [id, dependsOn, edition, description]]) => ({
    id: id!,
    dependsOn: dependsOn ? dependsOn.split(",") : [],
    edition: edition!,
    description: description ?? "",
  }));
}

// --- internal ---

function* rows(tsv: string, width: number): Generator<[number, string[]]> {
  const lines = tsv.split("\n");
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim()) continue;
    const cells = line.split("\t");
    if (cells.length !== width) throw new Error(`catalog line ${i + 1}: ${cells.length} cells, expected ${width}`);
    yield [i + 1, cells];
  }
}
