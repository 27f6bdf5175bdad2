import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * A clone of the repository alone runs its tests and reads its docs: no source file, script, test or document
 * points outside the repository, and every relative link in README.md and docs/ names a file the repository
 * carries.
 */
const ROOT = join(import.meta.dirname, "..");

function walk(dir: string, keep: (path: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (name === "node_modules" || name === "testdata" || name.startsWith(".")) return [];
    if (statSync(full).isDirectory()) return walk(full, keep);
    return keep(full) ? [full] : [];
  });
}

const docs = [join(ROOT, "README.md"), ...walk(join(ROOT, "docs"), (p) => p.endsWith(".md"))];

describe("the repository stands alone", () => {
  test("no source file, test or script reads a path outside the repository", () => {
    // Two exceptions: scripts/sync-fixtures.ts copies the shared fixtures in, when they are beside it; and
    // testing/real-kube.ts starts the real control plane of ../shared/kube when the machine has it, as
    // testing/real-components.ts starts Debian's Alertmanager (a tool of the machine, not a file of the
    // repository: without it the tests that need it say "skipped:" in one line).
    const exceptions = [
      join(ROOT, "scripts", "sync-fixtures.ts"),
      join(ROOT, "src", "testing", "real-kube.ts"),
      join(import.meta.dirname, "self-contained.test.ts"),
    ];
    const code = [
      ...walk(join(ROOT, "src"), (p) => p.endsWith(".ts")),
      ...walk(join(ROOT, "scripts"), (p) => p.endsWith(".ts")),
    ].filter((p) => !exceptions.includes(p));
    const offences = code
      .filter((p) => /["'`/]\.\.\/(\.\.\/)*shared\b|"shared", "fixtures"/.test(readFileSync(p, "utf8")))
      .map((p) => relative(ROOT, p));
    expect(offences).toEqual([]);
  });

  test("every relative link in README.md and docs/ names a file inside the repository", () => {
    const broken: string[] = [];
    for (const doc of docs) {
      const text = readFileSync(doc, "utf8");
      for (const m of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)|`(\.\.\/[^`\s]+)`/g)) {
        const target = m[1] ?? m[2]!;
        if (/^[a-z]+:/i.test(target)) continue;
        const full = resolve(dirname(doc), target);
        if (!full.startsWith(`${ROOT}/`) || !existsSync(full)) broken.push(`${relative(ROOT, doc)} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
