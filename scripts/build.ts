/**
 * Compiles src/main.ts into the single executable dist/mon (daemon and CLI), with the flags of
 * STYLE.md "Binary facts": no .env or bunfig.toml autoload from the working directory, ESM bytecode.
 * Usage: bun scripts/build.ts [--target bun-linux-x64] [--executable path/to/bun] [--outfile dist/mon] [--development]
 * (`--executable`: the runtime of the target platform, for cross-compiling without a download; scripts/release.ts;
 * `--development`: a build that trusts the test license server's key as running from source does — for trying
 * Pro features in a test cluster against src/testing/license-server.ts, never shipped).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const outfile = arg("--outfile") ?? join(root, "dist", "mon");
mkdirSync(join(root, "dist"), { recursive: true });
const flags = [
  "build",
  "--compile",
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
  "--format=esm",
  "--bytecode",
  // Whitespace, identifiers and syntax: 2 MB less than syntax alone (docs/performance.md "The binary").
  "--minify",
  // What is imported lazily (@kubernetes/client-node, read only for a kubeconfig file) is its own chunk inside
  // the binary, mapped only when imported: an idle mon in a cluster never touches it (issue 42).
  "--splitting",
  // A release build: it trusts only the vendor's license key and sends telemetry (src/build-info.ts).
  "--define",
  process.argv.includes("--development") ? 'MON_BUILD="development"' : 'MON_BUILD="release"',
  ...(arg("--target") ? [`--target=${arg("--target")}`] : []),
  ...(arg("--executable") ? [`--compile-executable-path=${arg("--executable")}`] : []),
  join(root, "src", "main.ts"),
  "--outfile",
  outfile,
];
const result = spawnSync(process.execPath, flags, { stdio: "inherit", cwd: root });
process.exit(result.status ?? 1);
