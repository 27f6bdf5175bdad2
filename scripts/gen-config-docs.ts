/**
 * Generates, from the one configuration schema (src/config/schema.ts) and the provider registry:
 *   docs/configuration.md        the reference (between the generated markers)
 *   deploy/feature-catalog.tsv   feature id, dependencies, edition, description
 *   deploy/config.schema.json    a JSON Schema editors use for completion and validation
 * Usage: bun scripts/gen-config-docs.ts [--check]   (--check exits 1 when a committed file is stale)
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type * as v from "valibot";
import { configurationRows, featureCatalogTsv, referenceTable } from "../src/config/catalog.ts";
import { describeSchema } from "../src/config/describe.ts";
import { ConfigSchema, ProviderCommonSchema } from "../src/config/schema.ts";
import { PROVIDERS } from "../src/providers/_registry.gen.ts";
import { runGenerator } from "./generated-file.ts";

const root = join(import.meta.dirname, "..");

/** The JSON Schema of the configuration file, with `alert.<provider>` typed per provider. */
export function configJsonSchema(): Record<string, unknown> {
  const convert = (schema: v.GenericSchema) =>
    standardize(toJsonSchema(schema, { errorMode: "ignore", typeMode: "input" })) as Record<string, unknown>;
  const base = convert(ConfigSchema);
  const common = convert(ProviderCommonSchema) as { properties: Record<string, unknown> };
  const providers: Record<string, unknown> = {};
  for (const [name, definition] of Object.entries(PROVIDERS)) {
    const own = convert(definition.options) as { properties?: Record<string, unknown>; required?: string[] };
    providers[name] = {
      type: "object",
      description: definition.title,
      properties: { ...(own.properties ?? {}), ...common.properties },
      ...(own.required?.length ? { required: own.required } : {}),
      additionalProperties: false,
    };
  }
  const properties = base.properties as Record<string, unknown>;
  properties.alert = {
    type: "object",
    description: (properties.alert as { description?: string }).description,
    properties: providers,
    additionalProperties: false,
  };
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: "https://mon.io/config.schema.json",
    title: "mon configuration (CONFIG_FILE)",
    ...base,
    additionalProperties: false,
  };
}

const META_KEYS = ["pro", "inCommunity", "feature", "dependsOn", "sensitive"];
const STANDARD_FORMATS: Record<string, string> = { url: "uri", uri: "uri", regex: "regex" };

/**
 * Moves mon's key metadata out of the JSON Schema vocabulary: `pro`, `feature`, `dependsOn` and `sensitive`
 * become `x-mon-*` annotations; a `format` that JSON Schema does not define becomes `x-mon-format`.
 */
function standardize(node: unknown, inProperties = false): unknown {
  if (Array.isArray(node)) return node.map((n) => standardize(n));
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (inProperties) out[key] = standardize(value);
    else if (META_KEYS.includes(key)) out[`x-mon-${key}`] = value;
    else if (key === "format" && typeof value === "string") {
      if (STANDARD_FORMATS[value]) out.format = STANDARD_FORMATS[value];
      else out["x-mon-format"] = value;
    } else out[key] = standardize(value, key === "properties" || key === "definitions" || key === "$defs");
  }
  return out;
}

/** docs/configuration.md with its generated sections replaced. */
export function configurationDoc(current: string): string {
  const providerRows = Object.entries(PROVIDERS)
    .map(([name, d]) => {
      const own = describeSchema(d.options)
        .map((r) => `\`${r.key}\`${d.credentials.includes(r.key) ? " (credential)" : ""}`)
        .join(", ");
      return `| \`${name}\` | ${d.kind} | ${own || "none"} |`;
    })
    .join("\n");
  const generated = [
    referenceTable(configurationRows()),
    "",
    "### Providers (`alert.<provider>`)",
    "",
    "Each provider takes its own options plus the `alert.<provider>` keys above. Credential options accept only",
    "an absolute `${file:/path}` reference.",
    "",
    "| provider | kind | options |",
    "|---|---|---|",
    providerRows,
  ].join("\n");
  const markers = /<!-- generated:begin[^>]*-->[\s\S]*<!-- generated:end -->/;
  // Without its markers the file would silently stay as it is, and the check would pass on a stale reference.
  if (!markers.test(current)) throw new Error("docs/configuration.md: the generated:begin/end markers are missing");
  return current.replace(
    markers,
    `<!-- generated:begin (scripts/gen-config-docs.ts; do not edit) -->\n${generated}\n<!-- generated:end -->`,
  );
}

/** Every generated file and its wanted content. */
export function generatedFiles(): [string, string][] {
  const doc = join(root, "docs", "configuration.md");
  return [
    [doc, configurationDoc(readFileSync(doc, "utf8"))],
    [join(root, "deploy", "feature-catalog.tsv"), featureCatalogTsv()],
    [join(root, "deploy", "config.schema.json"), `${JSON.stringify(configJsonSchema(), null, 2)}\n`],
  ];
}

if (import.meta.main) runGenerator(generatedFiles(), "bun scripts/gen-config-docs.ts");
