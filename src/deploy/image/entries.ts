/**
 * One file system entry of an image layer: what a layer tar holds for it (docs/install.md "The image").
 * Paths are relative to the image's root, without a leading slash ("usr/local/bin/mon"); ownership is
 * numeric, as the kubelet's runtime applies it.
 */
export type Entry =
  | { kind: "directory"; path: string; mode: number; uid: number; gid: number }
  | { kind: "file"; path: string; mode: number; uid: number; gid: number; data: Uint8Array }
  | { kind: "symlink"; path: string; target: string };

/** A directory owned by root, mode 0755 unless given. */
export function directory(path: string, mode = 0o755, owner = 0): Entry {
  return { kind: "directory", path: clean(path), mode, uid: owner, gid: owner };
}

/** A file owned by root, mode 0644 unless given. */
export function file(path: string, data: Uint8Array | string, mode = 0o644, owner = 0): Entry {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return { kind: "file", path: clean(path), mode, uid: owner, gid: owner, data: bytes };
}

/** A symbolic link at `path` to `target` (kept as written: relative targets stay relative). */
export function symlink(path: string, target: string): Entry {
  return { kind: "symlink", path: clean(path), target };
}

/** `path` without leading "/" or "./" and without a trailing "/"; throws on "..", which a layer must not hold. */
export function clean(path: string): string {
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) throw new Error(`image: the path ${path} leaves the image's root`);
  return parts.join("/");
}

/**
 * `entries` as a layer holds them: later entries win over earlier ones at the same path, every parent
 * directory exists (root-owned, 0755, unless an entry gives it), sorted by path so that the same entries
 * always make the same bytes.
 */
export function normalise(entries: readonly Entry[]): Entry[] {
  const byPath = new Map<string, Entry>();
  for (const e of entries) if (e.path !== "") byPath.set(e.path, e);
  for (const path of [...byPath.keys()]) {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join("/");
      if (!byPath.has(parent)) byPath.set(parent, directory(parent));
    }
  }
  return [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
