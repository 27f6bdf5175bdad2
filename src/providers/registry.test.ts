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

test("docs/providers/README.md says of every provider, once, whether a real server or only its contract proves it", () => {
  const doc = readFileSync(join(import.meta.dirname, "..", "..", "docs", "providers", "README.md"), "utf8");
  const named = (name: string) => doc.split(`\`${name}\``).length - 1;
  const proven = doc.slice(doc.indexOf("## Proven against a real server"));
  const problems = Object.keys(PROVIDERS).flatMap((name) =>
    named(name) === 1 ? [] : [`${name}: named ${named(name)} times`],
  );
  expect(problems).toEqual([]);
  expect(proven).toContain("`alertmanager`");
});
