/**
 * Release binaries (docs/install.md "Release binaries"): `mon` for linux x64 and arm64, macOS arm64 and x64,
 * each compiled by scripts/build.ts with the Bun runtime of its platform from the npm registry (the
 * `@oven/bun-<platform>` package of the installed Bun's version, passed as --compile-executable-path, so
 * nothing is downloaded from anywhere but the registry), then SHA256SUMS in the format `sha256sum -c` reads.
 * Writes dist/release/mon-<os>-<arch> and dist/release/SHA256SUMS.
 * Usage: bun scripts/release.ts [--targets linux-x64,linux-arm64,darwin-arm64,darwin-x64]
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const out = join(root, "dist", "release");
const cache = join(root, "dist", "runtimes");

/** Release name → Bun's compile target and the npm package holding that platform's runtime. */
export const TARGETS = {
  "linux-x64": { target: "bun-linux-x64", pkg: "@oven/bun-linux-x64" },
  "linux-arm64": { target: "bun-linux-arm64", pkg: "@oven/bun-linux-aarch64" },
  "darwin-arm64": { target: "bun-darwin-arm64", pkg: "@oven/bun-darwin-aarch64" },
  "darwin-x64": { target: "bun-darwin-x64", pkg: "@oven/bun-darwin-x64" },
} as const;
type Release = keyof typeof TARGETS;

const arg = process.argv.indexOf("--targets");
const wanted = (arg >= 0 ? process.argv[arg + 1]!.split(",") : Object.keys(TARGETS)) as Release[];
for (const name of wanted)
  if (!(name in TARGETS)) fail(`unknown target ${name}; known: ${Object.keys(TARGETS).join(", ")}`);
const version = JSON.parse(readFileSync(join(root, "node_modules", "bun", "package.json"), "utf8")).version as string;
mkdirSync(out, { recursive: true });
mkdirSync(cache, { recursive: true });

const sums: string[] = [];
for (const name of wanted) {
  const runtime = runtimeOf(TARGETS[name].pkg);
  const file = join(out, `mon-${name}`);
  const built = spawnSync(
    process.execPath,
    [join(root, "scripts", "build.ts"), "--target", TARGETS[name].target, "--executable", runtime, "--outfile", file],
    { stdio: "inherit", cwd: root },
  );
  if (built.status !== 0) fail(`building ${name} failed`);
  sums.push(`${createHash("sha256").update(readFileSync(file)).digest("hex")}  mon-${name}`);
  console.log(`built ${file}`);
}
writeFileSync(join(out, "SHA256SUMS"), `${sums.join("\n")}\n`);
console.log(`wrote ${join(out, "SHA256SUMS")}`);

/** The Bun runtime of a platform package at the installed Bun's version: node_modules when npm installed it, else packed from the registry into dist/runtimes. */
function runtimeOf(pkg: string): string {
  const installed = join(root, "node_modules", pkg, "bin", "bun");
  if (
    existsSync(installed) &&
    JSON.parse(readFileSync(join(root, "node_modules", pkg, "package.json"), "utf8")).version === version
  )
    return installed;
  const dir = join(cache, `${pkg.replace("@oven/", "")}-${version}`);
  const bin = join(dir, "package", "bin", "bun");
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  // npm pack fetches the tarball from the configured registry (a mirror in an air-gapped build).
  const packed = spawnSync("npm", ["pack", `${pkg}@${version}`, "--pack-destination", dir, "--silent"], {
    encoding: "utf8",
  });
  if (packed.status !== 0) fail(`npm pack ${pkg}@${version} failed: ${packed.stderr.trim()}`);
  const tarball = join(dir, packed.stdout.trim().split("\n").pop()!);
  const untar = spawnSync("tar", ["-xzf", tarball, "-C", dir], { encoding: "utf8" });
  if (untar.status !== 0 || !existsSync(bin)) fail(`unpacking ${tarball} failed: ${untar.stderr.trim()}`);
  return bin;
}

function fail(message: string): never {
  console.error(`release: ${message}`);
  process.exit(1);
}
