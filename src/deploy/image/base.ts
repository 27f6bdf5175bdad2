/**
 * The base of mon's image, as distroless `cc-debian12:nonroot` (Dockerfile.distroless's final FROM) carries it,
 * assembled from the Debian 12 packages installed on the building machine instead of pulled from a registry
 * (docs/install.md "The image"). What distroless puts in, from its build rules (base/, cc/ and common/ of
 * GoogleContainerTools/distroless): the packages below unpacked whole, a merged /usr, the CA bundle and its
 * copyright, /etc/passwd and /etc/group with the nonroot user, /etc/nsswitch.conf, /tmp (1777), /home/nonroot,
 * and each package's control record in /var/lib/dpkg/status.d for scanners.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstatSync, readFileSync, readlinkSync } from "node:fs";
import { directory, type Entry, file, symlink } from "./entries.ts";

/** The user the image runs as (distroless `nonroot`). */
export const NONROOT = 65532;

/** distroless static + base + cc for debian12, in that order. */
export const BASE_PACKAGES = [
  "base-files",
  "netbase",
  "tzdata",
  "libc6",
  "libssl3",
  "libgomp1",
  "libstdc++6",
  "libgcc-s1",
  "gcc-12-base",
] as const;

/** The config distroless `:nonroot` gives its images; a Dockerfile's own instructions are applied over it. */
export const BASE_CONFIG = {
  Env: [
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
  ],
  User: String(NONROOT),
  WorkingDir: "/home/nonroot",
} as const;

/** Top-level directories that are links into /usr in a merged-/usr image (Debian 12's default). */
const MERGED = ["bin", "lib", "lib64", "sbin"] as const;

/** Runs dpkg-query; throws with its message when it fails (not Debian, package missing). */
function dpkgQuery(args: readonly string[]): string {
  const r = spawnSync("dpkg-query", args, { encoding: "utf8" });
  if (r.error)
    throw new Error("image: dpkg-query is missing: the image is assembled from Debian 12's installed packages");
  if (r.status !== 0) throw new Error(`image: dpkg-query ${args.join(" ")}: ${r.stderr.trim()}`);
  return r.stdout;
}

/** `path` as it lies in a merged-/usr image ("lib/x86_64-linux-gnu/libc.so.6" → "usr/lib/x86_64-linux-gnu/libc.so.6"). */
export function merged(path: string): string {
  const top = path.split("/")[0]!;
  return (MERGED as readonly string[]).includes(top) ? `usr/${path}` : path;
}

/** md5 of every file `pkg` installed, by absolute path: its md5sums and its conffiles. */
function packageSums(pkg: string): Map<string, string> {
  const sums = new Map<string, string>();
  const path = dpkgQuery(["--control-path", pkg, "md5sums"]).trim();
  if (path)
    for (const line of readFileSync(path, "utf8").split("\n")) {
      const m = /^([0-9a-f]{32}) {2}(.+)$/.exec(line);
      if (m) sums.set(`/${m[2]}`, m[1]!);
    }
  for (const line of dpkgQuery(["-W", "-f=${Conffiles}\\n", pkg]).split("\n")) {
    const m = /^ (\/\S+) ([0-9a-f]{32})/.exec(line);
    if (m) sums.set(m[1]!, m[2]!);
  }
  return sums;
}

/**
 * Every file, directory and link `pkg` installed on this machine, as image entries (root-owned, the host's
 * modes). Each file's bytes are checked against the package's own md5 sums, so a file changed on this machine
 * never reaches the image: throws naming it. `/etc/…` files dpkg does not sum (none in these packages) are refused.
 */
export function packageEntries(pkg: string): Entry[] {
  const sums = packageSums(pkg);
  const entries: Entry[] = [];
  for (const abs of dpkgQuery(["-L", pkg]).split("\n")) {
    if (!abs.startsWith("/") || abs === "/.") continue;
    const rel = abs.slice(1);
    if ((MERGED as readonly string[]).includes(rel)) continue;
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (!st) throw new Error(`image: ${abs} of package ${pkg} is missing on this machine`);
    const path = merged(rel);
    if (st.isSymbolicLink()) entries.push(symlink(path, readlinkSync(abs)));
    else if (st.isDirectory()) entries.push(directory(path, st.mode & 0o7777));
    else if (st.isFile()) {
      const data = readFileSync(abs);
      const want = sums.get(abs);
      if (!want) throw new Error(`image: ${abs} of package ${pkg} has no md5 sum to check it against`);
      const got = createHash("md5").update(data).digest("hex");
      if (got !== want)
        throw new Error(`image: ${abs} differs from package ${pkg} (changed on this machine); reinstall it`);
      entries.push(file(path, data, st.mode & 0o7777));
    }
  }
  return entries;
}

/** The package's control record as distroless keeps it in /var/lib/dpkg/status.d/<name> (no Status, no Conffiles). */
export function statusRecord(pkg: string): Entry {
  const record = dpkgQuery(["-s", pkg])
    .split("\n")
    .filter((l) => !l.startsWith("Status:"))
    .join("\n")
    .replace(/\nConffiles:\n( .*\n)*/, "\n")
    .trimEnd();
  const name = pkg.replace(/:.*/, "");
  return file(`var/lib/dpkg/status.d/${name}`, `${record}\n`);
}

/** The version of `pkg` installed here ("2.36-9+deb12u14"), for the image's labels and the build's log. */
export function packageVersion(pkg: string): string {
  return dpkgQuery(["-W", "-f=${Version}", pkg]).trim();
}

/**
 * The CA bundle distroless builds from the ca-certificates package (its cacerts rule): every certificate
 * update-ca-certificates would enable, concatenated in name order, plus the package's copyright.
 */
export function caCertificates(): Entry[] {
  const pems = dpkgQuery(["-L", "ca-certificates"])
    .split("\n")
    .filter((p) => p.startsWith("/usr/share/ca-certificates/") && p.endsWith(".crt"))
    .sort();
  const sums = packageSums("ca-certificates");
  const parts = pems.map((p) => {
    const data = readFileSync(p);
    if (createHash("md5").update(data).digest("hex") !== sums.get(p))
      throw new Error(`image: ${p} differs from package ca-certificates (changed on this machine); reinstall it`);
    const text = data.toString("utf8");
    return text.endsWith("\n") ? text : `${text}\n`;
  });
  if (parts.length === 0) throw new Error("image: package ca-certificates lists no certificate");
  return [
    file("etc/ssl/certs/ca-certificates.crt", parts.join("")),
    file("usr/share/doc/ca-certificates/copyright", readFileSync("/usr/share/doc/ca-certificates/copyright")),
  ];
}

/** The files distroless writes itself: users, groups, name service, /tmp, the homes, merged /usr. */
export function baseFiles(): Entry[] {
  return [
    ...MERGED.map((d) => symlink(d, `usr/${d}`)),
    directory("usr/bin"),
    directory("usr/lib"),
    directory("usr/lib64"),
    directory("usr/sbin"),
    file(
      "etc/passwd",
      `root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:${NONROOT}:${NONROOT}:nonroot:/home/nonroot:/sbin/nologin\n`,
    ),
    file("etc/group", `root:x:0:\nnobody:x:65534:\ntty:x:5:\nstaff:x:50:\nnonroot:x:${NONROOT}:\n`),
    file(
      "etc/nsswitch.conf",
      "passwd:         files\ngroup:          files\nshadow:         files\n\nhosts:          files dns\nnetworks:       files\n\nprotocols:      files\nservices:       files\nethers:         files\nrpc:            files\n",
    ),
    directory("tmp", 0o1777),
    directory("root", 0o700),
    directory("home"),
    directory("home/nonroot", 0o700, NONROOT),
  ];
}

/** The whole base layer: packages, then distroless's own files over them. */
export function baseEntries(): Entry[] {
  return [
    ...BASE_PACKAGES.flatMap((p) => packageEntries(p)),
    ...BASE_PACKAGES.map((p) => statusRecord(p)),
    statusRecord("ca-certificates"),
    ...caCertificates(),
    ...baseFiles(),
  ];
}
