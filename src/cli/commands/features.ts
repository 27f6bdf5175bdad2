import { defineCommand } from "citty";
import { featureCatalog, featureCatalogTsv } from "../../config/catalog.ts";

/** `mon features`: the feature catalog (feature id, dependencies, edition, description); informational only (spec 4.4). */
export default defineCommand({
  meta: { name: "features", description: "List feature IDs, their dependencies, edition and description." },
  args: {
    format: { type: "string", description: "table, tsv or json", default: "table" },
  },
  run({ args }) {
    const features = featureCatalog();
    if (args.format === "tsv") return void process.stdout.write(featureCatalogTsv(features));
    if (args.format === "json") return void process.stdout.write(`${JSON.stringify(features, null, 2)}\n`);
    const width = Math.max(...features.map((f) => f.id.length));
    const lines = features.map((f) => `${f.id.padEnd(width)}  ${(f.pro ? "Pro" : "").padEnd(3)}  ${f.description}${f.dependsOn.length ? ` (needs ${f.dependsOn.join(", ")})` : ""}`);
    process.stdout.write(`${lines.join("\n")}\n`);
  },
});
