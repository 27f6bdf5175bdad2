/**
 * mon's image without a registry (docs/install.md "The image"): Dockerfile.distroless's final stage — its base
 * (distroless cc-debian12:nonroot, from this machine's Debian 12 packages, base.ts), the binary where it copies
 * it, its USER, EXPOSE, ENTRYPOINT, CMD and LABELs — as one archive a containerd or Docker imports.
 */
import { readFileSync } from "node:fs";
import { type ImageArchive, type ImageConfig, imageArchive } from "./archive.ts";
import { BASE_CONFIG, baseEntries } from "./base.ts";
import { finalStage } from "./dockerfile.ts";
import { file } from "./entries.ts";

/** The base image this assembler reproduces; any other FROM in the Dockerfile is refused. */
export const REPRODUCED_BASE = "gcr.io/distroless/cc-debian12:nonroot";

/** What to build: the binary's bytes, the Dockerfile's text, the tag, and the creation time (s since epoch). */
export interface ImageInput {
  binary: Uint8Array;
  dockerfile: string;
  tag: string;
  created: number;
}

/** The image's config as `docker build` would write it: the base's config with the final stage's instructions over it. */
export function imageConfig(dockerfile: string): ImageConfig {
  const stage = finalStage(dockerfile);
  if (stage.base !== REPRODUCED_BASE)
    throw new Error(`Dockerfile: FROM ${stage.base}: scripts/image.ts reproduces only ${REPRODUCED_BASE}`);
  return {
    User: stage.user || BASE_CONFIG.User,
    Env: BASE_CONFIG.Env,
    WorkingDir: BASE_CONFIG.WorkingDir,
    Entrypoint: stage.entrypoint,
    Cmd: stage.cmd,
    ExposedPorts: Object.fromEntries(stage.exposedPorts.map((p) => [p, {}])),
    Labels: stage.labels,
  };
}

/** Assembles the image: two layers (the base, then the binary at the Dockerfile's COPY destination, mode 0755). */
export function buildImage(input: ImageInput): Promise<ImageArchive> {
  const stage = finalStage(input.dockerfile);
  const config = imageConfig(input.dockerfile);
  return imageArchive(input.tag, [baseEntries(), [file(stage.binaryPath, input.binary, 0o755)]], config, input.created);
}

/** The Dockerfile beside the repository's root. */
export function repositoryDockerfile(root: string): string {
  return readFileSync(`${root}/Dockerfile.distroless`, "utf8");
}
