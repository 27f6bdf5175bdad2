/**
 * An image as one tar that both `ctr images import` / `docker load` (docker-archive: manifest.json) and OCI
 * tools (an OCI image layout: oci-layout, index.json, blobs/sha256) read — the format `docker save` writes
 * (docs/install.md "The image"). Reproducible: entries sorted, timestamps fixed, numeric ownership only, so
 * the same inputs always make the same bytes and digests.
 */
import { createHash } from "node:crypto";
import { pack } from "tar-stream";
import { type Entry, normalise } from "./entries.ts";

/** What an image's config says beyond its layers (OCI image config's `config`). */
export interface ImageConfig {
  User: string;
  Env: readonly string[];
  WorkingDir: string;
  Entrypoint: readonly string[];
  Cmd: readonly string[];
  ExposedPorts: Readonly<Record<string, Record<string, never>>>;
  Labels: Readonly<Record<string, string>>;
}

/** An assembled image: the tar's bytes and the digests a runtime will show for it. */
export interface ImageArchive {
  bytes: Uint8Array;
  /** sha256:… of the OCI manifest (what `ctr images ls` shows as the image's digest). */
  manifestDigest: string;
  /** sha256:… of the config (the image ID `docker images` shows). */
  configDigest: string;
  /** sha256:… of each uncompressed layer, base first. */
  layerDigests: string[];
}

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

/** Packs `entries` (any order, duplicates: last wins) into a layer tar; `mtime` in seconds since the epoch. */
export async function layerTar(entries: readonly Entry[], mtime: number): Promise<Uint8Array> {
  const p = pack();
  const chunks: Uint8Array[] = [];
  p.on("data", (c) => chunks.push(c as Uint8Array));
  const done = new Promise<void>((resolve, reject) => {
    p.on("end", resolve);
    p.on("error", reject);
  });
  const date = new Date(mtime * 1000);
  for (const e of normalise(entries)) {
    if (e.kind === "symlink")
      p.entry({ name: e.path, type: "symlink", linkname: e.target, mode: 0o777, uid: 0, gid: 0, mtime: date });
    else if (e.kind === "directory")
      p.entry({ name: `${e.path}/`, type: "directory", mode: e.mode, uid: e.uid, gid: e.gid, mtime: date });
    else
      p.entry(
        { name: e.path, type: "file", mode: e.mode, uid: e.uid, gid: e.gid, mtime: date, size: e.data.length },
        Buffer.from(e.data),
      );
  }
  p.finalize();
  await done;
  return Buffer.concat(chunks);
}

/**
 * The archive of an image tagged `tag` (e.g. localhost/mon:0.1.0) made of `layers` (base first) and
 * `config`; `created` is the image's creation time in seconds since the epoch (SOURCE_DATE_EPOCH in
 * scripts/image.ts), also every file's mtime.
 */
export async function imageArchive(
  tag: string,
  layers: readonly (readonly Entry[])[],
  config: ImageConfig,
  created: number,
): Promise<ImageArchive> {
  const layerBytes = await Promise.all(layers.map((l) => layerTar(l, created)));
  const layerDigests = layerBytes.map(sha256);
  const createdIso = new Date(created * 1000).toISOString().replace(/\.000Z$/, "Z");
  const configBytes = json({
    created: createdIso,
    architecture: "amd64",
    os: "linux",
    config,
    rootfs: { type: "layers", diff_ids: layerDigests.map((d) => `sha256:${d}`) },
    history: layers.map((_, i) => ({
      created: createdIso,
      created_by: i === 0 ? "scripts/image.ts: the distroless cc-debian12 base" : "scripts/image.ts: COPY the binary",
    })),
  });
  const configDigest = sha256(configBytes);
  const manifestBytes = json({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: {
      mediaType: "application/vnd.oci.image.config.v1+json",
      digest: `sha256:${configDigest}`,
      size: configBytes.length,
    },
    layers: layerBytes.map((b, i) => ({
      mediaType: "application/vnd.oci.image.layer.v1.tar",
      digest: `sha256:${layerDigests[i]}`,
      size: b.length,
    })),
  });
  const manifestDigest = sha256(manifestBytes);
  const index = json({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.index.v1+json",
    manifests: [
      {
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        digest: `sha256:${manifestDigest}`,
        size: manifestBytes.length,
        annotations: { "io.containerd.image.name": tag, "org.opencontainers.image.ref.name": tag.split(":").at(-1) },
      },
    ],
  });
  const dockerManifest = json([
    { Config: `blobs/sha256/${configDigest}`, RepoTags: [tag], Layers: layerDigests.map((d) => `blobs/sha256/${d}`) },
  ]);
  const files: [string, Uint8Array][] = [
    [`blobs/sha256/${configDigest}`, configBytes],
    [`blobs/sha256/${manifestDigest}`, manifestBytes],
    ...layerBytes.map((b, i): [string, Uint8Array] => [`blobs/sha256/${layerDigests[i]}`, b]),
    ["index.json", index],
    ["manifest.json", dockerManifest],
    ["oci-layout", json({ imageLayoutVersion: "1.0.0" })],
  ];
  const outer = await layerTar(
    [...files.map(([name, data]) => ({ kind: "file" as const, path: name, mode: 0o644, uid: 0, gid: 0, data }))],
    created,
  );
  return {
    bytes: outer,
    manifestDigest: `sha256:${manifestDigest}`,
    configDigest: `sha256:${configDigest}`,
    layerDigests: layerDigests.map((d) => `sha256:${d}`),
  };
}
