import { defineCommand } from "citty";
import { featureCatalog, featureCatalogTsv } from "../../config/catalog.ts";
import { catalogProviders, debugProviders } from "../../providers/_kit/catalog.ts";

/**
 * `mon features`: the feature catalog (feature id, dependencies, edition, description), then the alert
 * providers (`alert.<name>`, kind, title); informational only (spec 4.4). `--format tsv` prints the features
 * only (deploy/feature-catalog.tsv); `--format json` gives `{features, providers}`.
 */
export default defineCommand({
  meta: { name: "features", description: "List feature IDs, their dependencies, edition and description." },
  args: {
    format: { type: "string", description: "table, tsv or json", default: "table" },
  },
  run({ args }) {
    const features = featureCatalog();
    const providers = catalogProviders().map((d) => ({ name: `alert.${d.name}`, kind: d.kind, title: d.title }));
    const debugging = debugProviders().map((d) => ({ name: `alert.${d.name}`, title: d.title }));
    if (args.format === "tsv") return void process.stdout.write(featureCatalogTsv(features));
    if (args.format === "json")
      return void process.stdout.write(`${JSON.stringify({ features, providers, debugging }, null, 2)}\n`);
    const width = Math.max(...features.map((f) => f.id.length), ...providers.map((p) => p.name.length));
    const lines = features.map(
      (f) =>
        `${f.id.padEnd(width)}  ${(f.pro ? "Pro" : "").padEnd(7)}  ${f.description}${f.dependsOn.length ? ` (needs ${f.dependsOn.join(", ")})` : ""}`,
    );
    const providerLines = providers.map((p) => `${p.name.padEnd(width)}  ${p.kind.padEnd(7)}  ${p.title}`);
    const debug = debugProviders().map((d) => `${`alert.${d.name}`.padEnd(width)}  ${"".padEnd(7)}  ${d.title}`);
    process.stdout.write(
      [
        `Features (${features.length}; configuration key, edition, description; deploy/feature-catalog.tsv):`,
        ...lines,
        "",
        `Alert providers (${providers.length}; alert.<name>, kind, title; docs/providers/):`,
        ...providerLines,
        "",
        "For debugging (mon demo):",
        ...debug,
        "",
      ].join("\n"),
    );
  },
});
