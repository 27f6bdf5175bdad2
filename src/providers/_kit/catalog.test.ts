import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { withGenerated } from "../../../scripts/gen-providers.ts";
import { catalogProviders, debugProviders, providerCatalogTsv, providerDoc, providerFields } from "./catalog.ts";

const root = join(import.meta.dirname, "..", "..", "..");

describe("the provider catalog (spec 1.11, 2.4)", () => {
  test("55 providers in four kinds, each with a credential guide", () => {
    const providers = catalogProviders();
    expect(providers).toHaveLength(55);
    const kinds = Object.fromEntries(
      ["chat", "paging", "tracker", "info"].map((k) => [k, providers.filter((p) => p.kind === k).length]),
    );
    expect(kinds).toEqual({ chat: 14, paging: 17, tracker: 6, info: 18 });
    expect(providers.filter((p) => !p.guide?.credential).map((p) => p.name)).toEqual([]);
  });

  test("every credential option is marked secret, and every guide names only real options", () => {
    for (const d of catalogProviders()) {
      const fields = providerFields(d);
      const names = new Set(fields.map((f) => f.name));
      expect(
        fields
          .filter((f) => f.secret)
          .map((f) => f.name)
          .sort(),
        d.name,
      ).toEqual([...d.credentials].sort());
      for (const name of [
        ...(d.guide?.oneOf ?? []).flat(),
        ...Object.keys(d.guide?.requires ?? {}),
        ...Object.values(d.guide?.requires ?? {}).flat(),
      ])
        expect(names.has(name), `${d.name}.${name}`).toBe(true);
    }
  });

  test("every option of every provider, stdout included, is described on its page", () => {
    for (const d of [...catalogProviders(), ...debugProviders()])
      for (const f of providerFields(d)) expect(f.description, `${d.name}.${f.name}`).not.toBe("");
  });

  test("deploy/provider-catalog.tsv and docs/providers/*.md are current (run bun scripts/gen-providers.ts)", () => {
    expect(readFileSync(join(root, "deploy", "provider-catalog.tsv"), "utf8")).toBe(providerCatalogTsv());
    for (const d of [...catalogProviders(), ...debugProviders()]) {
      const path = join(root, "docs", "providers", `${d.name}.md`);
      const current = readFileSync(path, "utf8");
      expect(withGenerated(current, providerDoc(d)), path).toBe(current);
    }
  });
});
