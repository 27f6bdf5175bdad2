import { describeSchema, type KeyRow } from "./describe.ts";
import { ConfigSchema, ProviderCommonSchema } from "./schema.ts";

/** One row of deploy/feature-catalog.tsv: a feature id, the features it needs, and what it does. */
export interface Feature {
  readonly id: string;
  readonly dependsOn: readonly string[];
  readonly pro: boolean;
  readonly description: string;
}

/** Every documented key of the configuration, top level then `alert.<provider>` common keys. */
export function configurationRows(): KeyRow[] {
  return [...describeSchema(ConfigSchema), ...describeSchema(ProviderCommonSchema, "alert.<provider>")];
}

/**
 * The feature catalog (spec 4.4 `features`; spec 9.3): one row per feature id named in the schema's metadata,
 * in schema order; informational only. Provider credentials are never part of it (spec 2.4).
 */
export function featureCatalog(rows: readonly KeyRow[] = configurationRows()): Feature[] {
  const features = new Map<string, Feature>();
  for (const row of rows) {
    const id = row.meta.feature;
    if (!id || features.has(id)) continue;
    features.set(id, {
      id,
      dependsOn: row.meta.dependsOn ?? [],
      pro: Boolean(row.meta.pro),
      description: row.description,
    });
  }
  return [...features.values()];
}

/** The catalog as TSV with a header line: `feature`, `depends_on` (comma-separated), `edition`, `description`. */
export function featureCatalogTsv(features: readonly Feature[] = featureCatalog()): string {
  const clean = (s: string) => s.replace(/[\t\n]+/g, " ");
  return `${[
    "feature\tdepends_on\tedition\tdescription",
    ...features.map((f) => [f.id, f.dependsOn.join(","), f.pro ? "pro" : "community", clean(f.description)].join("\t")),
  ].join("\n")}\n`;
}

/** Markdown reference table of `rows` (`| key | type | default | edition | description |`). */
export function referenceTable(rows: readonly KeyRow[]): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
  const shown = (value: unknown) => (value === undefined ? "" : `\`${JSON.stringify(value)}\``);
  return [
    "| key | type | default | edition | description |",
    "|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| \`${r.key}\` | ${cell(r.type)} | ${shown(r.default)} | ${r.meta.pro ? "Pro" : ""} | ${cell(r.description)}${r.meta.sensitive === "file" ? " **Credential.**" : ""} |`,
    ),
  ].join("\n");
}
