import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ImageArchive } from "../deploy/image/archive.ts";
import { buildImage, repositoryDockerfile } from "../deploy/image/image.ts";

const ROOT = join(import.meta.dirname, "..", "..");

/**
 * mon compiled as the release is (scripts/build.ts) into `dir/mon`, then assembled into its image tagged `tag`
 * as scripts/image.ts does (issue 51). `development`: a development build (`scripts/build.ts --development`),
 * which trusts the test license server — for Pro features on the real node. Throws with the compiler's output
 * when the build fails.
 */
export async function compiledImage(
  dir: string,
  tag: string,
  options: { development?: boolean } = {},
): Promise<ImageArchive> {
  const binary = join(dir, "mon");
  const flags = ["--outfile", binary, ...(options.development ? ["--development"] : [])];
  const build = spawnSync(process.execPath, [join(ROOT, "scripts", "build.ts"), ...flags], { encoding: "utf8" });
  if (build.status !== 0) throw new Error(`the build failed: ${build.stdout}${build.stderr}`);
  return buildImage({ binary: readFileSync(binary), dockerfile: repositoryDockerfile(ROOT), tag, created: 0 });
}
