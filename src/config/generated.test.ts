import { PROVIDERS } from "../providers/_registry.gen.ts";
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { configJsonSchema, configurationDoc, generatedFiles } from "../../scripts/gen-config-docs.ts";
import { featureCatalog } from "./catalog.ts";
import { describeSchema } from "./describe.ts";
import { ConfigSchema } from "./schema.ts";

describe("files generated from the configuration schema", () => {
  for (const [path, wanted] of generatedFiles()) {
    test(`${path.split("/").slice(-2).join("/")} is current (run bun scripts/gen-config-docs.ts)`, () => {
      expect(readFileSync(path, "utf8")).toBe(wanted);
    });
  }

  test("the configuration reference names every provider and every key (its generated section is found)", () => {
    const doc = readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");
    for (const name of Object.keys(PROVIDERS)) expect(doc, name).toContain(`| \`${name}\` |`);
    for (const row of describeSchema(ConfigSchema)) expect(doc, row.key).toContain(`| \`${row.key}\` |`);
    expect(() => configurationDoc("no markers here")).toThrow("markers are missing");
  });

  test("every key of the schema has a one-line description", () => {
    const rows = describeSchema(ConfigSchema);
    expect(rows.length).toBeGreaterThan(50);
    for (const row of rows) expect(row.description, row.key).toMatch(/^[A-Z].*[.)]$/);
  });

  test("every feature a catalog row depends on is itself in the catalog", () => {
    const ids = new Set(featureCatalog().map((f) => f.id));
    for (const f of featureCatalog()) for (const d of f.dependsOn) expect(ids.has(d), `${f.id} needs ${d}`).toBe(true);
  });

  test("the JSON Schema types every provider under alert and rejects unknown keys for editors", () => {
    const schema = configJsonSchema() as {
      properties: { alert: { properties: Record<string, { properties: Record<string, unknown> }> } };
      additionalProperties: boolean;
    };
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties.alert.properties).sort()).toEqual(Object.keys(PROVIDERS).sort());
    expect(Object.keys(schema.properties.alert.properties.slack!.properties)).toEqual(
      expect.arrayContaining([
        "webhook",
        "token",
        "channel",
        "hourlyBudget",
        "routes",
        "retry",
        "fallback",
        "templates",
      ]),
    );
  });
});
