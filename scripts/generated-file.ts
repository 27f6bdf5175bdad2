/** Shared by the generator scripts: keeps one generated file in step with what it should contain. */
import { readFileSync, writeFileSync } from "node:fs";

/**
 * Compares `path` with `wanted`. With `check` it only reports; otherwise it rewrites a stale file.
 * Returns true when the file was (or, with `check`, would be) stale. A missing file is stale.
 */
export function syncGenerated(path: string, wanted: string, check: boolean): boolean {
  let current = "";
  try {
    current = readFileSync(path, "utf8");
  } catch {
    // missing: stale
  }
  if (current === wanted) return false;
  if (!check) writeFileSync(path, wanted);
  return true;
}

/** Runs a generator's main: syncs every file and, with `--check`, exits 1 naming the stale ones and how to fix them. */
export function runGenerator(files: readonly [string, string][], command: string): void {
  const check = process.argv.includes("--check");
  const stale = files.filter(([path, wanted]) => syncGenerated(path, wanted, check)).map(([path]) => path);
  if (check && stale.length) {
    console.error(`stale generated files (run ${command}): ${stale.join(", ")}`);
    process.exit(1);
  }
  if (!check && stale.length) console.log(`wrote ${stale.join(", ")}`);
}

/** Replaces what lies between the `begin` and `end` marker lines of the document at `path` with `text`. */
export function writeBetweenMarkers(path: string, begin: string, end: string, text: string): void {
  const doc = readFileSync(path, "utf8");
  const at = doc.indexOf(begin);
  const stop = doc.indexOf(end);
  if (at < 0 || stop < 0) throw new Error(`${path} has no markers ${begin} … ${end}`);
  writeFileSync(path, `${doc.slice(0, at + begin.length)}\n${text}\n${doc.slice(stop)}`);
}
