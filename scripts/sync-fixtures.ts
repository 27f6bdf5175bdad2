/**
 * Keeps the recorded kube-apiserver v1.32 exchanges and timelines the tests read (src/sim/testdata/) in step
 * with a maintainer's copy of the recordings. The repository carries its own copy: a clone alone runs every
 * test. Usage: bun scripts/sync-fixtures.ts [--check] SOURCE (the recordings' directory; without it there is
 * nothing to compare; exit 1 with --check when the copy is stale).
 */
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const root = join(import.meta.dirname, "..");
const target = join(root, "src", "sim", "testdata", "kube-apiserver-v1.32");
const check = process.argv.includes("--check");
const source = process.argv.slice(2).find((a) => !a.startsWith("--"));

if (!source || !existsSync(source)) {
  console.log(`no fixtures at ${source}: nothing to compare (the repository's copy is used as it is)`);
  process.exit(0);
}
const differ = differences(source, target);
if (differ.length === 0) {
  console.log(`${relative(root, target)} matches ${source}`);
  process.exit(0);
}
if (check) {
  console.error(
    `${differ.length} fixture file(s) differ from ${source} (run bun scripts/sync-fixtures.ts): ${differ.slice(0, 5).join(", ")}`,
  );
  process.exit(1);
}
rmSync(target, { recursive: true, force: true });
cpSync(source, target, { recursive: true });
console.log(`copied ${source} to ${relative(root, target)} (${differ.length} file(s) changed)`);

// --- internal ---

/** Relative paths present on one side only or with other bytes. */
function differences(a: string, b: string): string[] {
  const left = files(a);
  const right = existsSync(b) ? files(b) : new Set<string>();
  const out: string[] = [];
  for (const f of new Set([...left, ...right])) {
    if (!left.has(f) || !right.has(f) || !readFileSync(join(a, f)).equals(readFileSync(join(b, f)))) out.push(f);
  }
  return out.sort();
}

function files(dir: string, prefix = ""): Set<string> {
  const out = new Set<string>();
  for (const name of readdirSync(join(dir, prefix))) {
    const rel = join(prefix, name);
    if (statSync(join(dir, rel)).isDirectory()) for (const f of files(dir, rel)) out.add(f);
    else out.add(rel);
  }
  return out;
}
