import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { renderRegistry } from "../../scripts/gen-registry.ts";
import { PROVIDERS } from "./_registry.gen.ts";

test("the generated provider registry is current (run bun scripts/gen-registry.ts)", () => {
  const dir = import.meta.dirname;
  expect(readFileSync(join(dir, "_registry.gen.ts"), "utf8")).toBe(renderRegistry(readdirSync(dir)));
});

test("every registered provider's name matches its file and its definition is frozen", () => {
  for (const [name, definition] of Object.entries(PROVIDERS)) {
    expect(definition.name).toBe(name);
    expect(Object.isFrozen(definition)).toBe(true);
  }
});
