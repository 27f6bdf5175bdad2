import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeBetweenMarkers } from "../generated-file.ts";

const root = join(import.meta.dirname, "..", "..");

/**
 * Writes a benchmark's result: `scripts/bench/results/<name>.json`, and `text` between the markers
 * `<!-- name:begin -->` and `<!-- name:end -->` of docs/performance.md.
 */
export function publish(name: string, result: unknown, text: string): void {
  writeFileSync(join(root, "scripts", "bench", "results", `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
  writeBetweenMarkers(join(root, "docs", "performance.md"), `<!-- ${name}:begin -->`, `<!-- ${name}:end -->`, text);
  console.log(text);
}

/** Waits until mon's /readyz on 127.0.0.1:`port` answers 200 (required caches synced); throws after 60 s. */
export async function waitReady(port: number): Promise<void> {
  for (let i = 0; ; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (i > 600) throw new Error("mon did not become ready within 60 s");
    await new Promise((r) => setTimeout(r, 100));
  }
}
