/**
 * mon's image without a registry or a Docker engine (docs/install.md "The image"): Dockerfile.distroless
 * reproduced from the built binary and this machine's Debian 12 packages (src/deploy/image), written as one
 * tar that `ctr images import`, `docker load` and OCI tools read. Same binary and packages, same digest.
 * Usage: bun scripts/image.ts [--binary dist/mon] [--tag localhost/mon:<version>] [--out dist/image/mon.tar]
 * Prints the archive's path and the image's manifest digest. The creation time is SOURCE_DATE_EPOCH (seconds)
 * when set, else the epoch.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildImage, repositoryDockerfile } from "../src/deploy/image/image.ts";
import { VERSION } from "../src/version.ts";

const root = join(import.meta.dirname, "..");
const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const binaryPath = arg("--binary") ?? join(root, "dist", "mon");
const tag = arg("--tag") ?? `localhost/mon:${VERSION}`;
const out = arg("--out") ?? join(root, "dist", "image", "mon.tar");
const created = Number(process.env.SOURCE_DATE_EPOCH ?? 0);
if (!Number.isInteger(created) || created < 0)
  fail(`SOURCE_DATE_EPOCH=${process.env.SOURCE_DATE_EPOCH}: not whole seconds`);

let binary: Uint8Array;
try {
  binary = readFileSync(binaryPath);
} catch {
  fail(`${binaryPath}: no binary (npm run build makes dist/mon)`);
}
try {
  const image = await buildImage({ binary, dockerfile: repositoryDockerfile(root), tag, created });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, image.bytes);
  console.log(`${out}: ${tag} ${image.manifestDigest} (${(image.bytes.length / 2 ** 20).toFixed(1)} MiB)`);
} catch (e) {
  fail((e as Error).message);
}

function fail(message: string): never {
  console.error(`image: ${message}`);
  process.exit(1);
}
