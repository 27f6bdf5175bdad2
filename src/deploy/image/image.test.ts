import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { extract } from "tar-stream";
import { VERSION } from "../../version.ts";
import { layerTar } from "./archive.ts";
import { BASE_PACKAGES, merged } from "./base.ts";
import { finalStage } from "./dockerfile.ts";
import { directory, type Entry, file, symlink } from "./entries.ts";
import { compiledImage } from "../../testing/image.ts";
import { buildImage, repositoryDockerfile } from "./image.ts";

/**
 * mon's image assembled without a registry (issue 51, docs/install.md "The image"): the layout and config
 * `docker build -f Dockerfile.distroless` would give, reproducible, and a binary that starts inside it alone.
 */
const ROOT = join(import.meta.dirname, "..", "..", "..");
const onDebian = spawnSync("dpkg-query", ["-W", "libc6"]).status === 0;
const debianTest = onDebian
  ? test
  : skip("the image is assembled from Debian 12's installed packages; dpkg-query found none");
const rootTest =
  onDebian && process.getuid?.() === 0 && spawnSync("unshare", ["--help"]).status === 0
    ? test
    : skip("starting the binary inside the image needs root and unshare (a chroot with its own /proc)");

function skip(why: string): typeof test {
  console.log(`skipped: ${why}`);
  return test.skip;
}

interface TarFile {
  name: string;
  type: string;
  mode: number;
  uid: number;
  gid: number;
  linkname?: string;
  data: Buffer;
}

/** Every entry of a tar's bytes, in order. */
async function readTar(bytes: Uint8Array): Promise<TarFile[]> {
  const ex = extract();
  const out: TarFile[] = [];
  ex.on("entry", (h, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c) => chunks.push(c as Buffer));
    stream.on("end", () => {
      out.push({
        name: h.name.replace(/\/$/, ""),
        type: h.type ?? "file",
        mode: h.mode ?? 0,
        uid: h.uid ?? 0,
        gid: h.gid ?? 0,
        linkname: h.linkname ?? undefined,
        data: Buffer.concat(chunks),
      });
      next();
    });
    stream.resume();
  });
  const done = new Promise<void>((resolve, reject) => {
    ex.on("finish", resolve);
    ex.on("error", reject);
  });
  ex.end(Buffer.from(bytes));
  await done;
  return out;
}

/** The image's layers (base first) and config, read back from the archive as a runtime would. */
async function open(bytes: Uint8Array) {
  const files = new Map((await readTar(bytes)).map((f) => [f.name, f.data]));
  const [manifest] = JSON.parse(files.get("manifest.json")!.toString()) as {
    Config: string;
    Layers: string[];
    RepoTags: string[];
  }[];
  const config = JSON.parse(files.get(manifest!.Config)!.toString());
  const layers = await Promise.all(manifest!.Layers.map((l) => readTar(files.get(l)!)));
  return { manifest: manifest!, config, layers, index: JSON.parse(files.get("index.json")!.toString()) };
}

const binary = new TextEncoder().encode("#!/not/a/real/binary\n");
let built: Awaited<ReturnType<typeof buildImage>> | undefined;
async function image() {
  built ??= await buildImage({
    binary,
    dockerfile: repositoryDockerfile(ROOT),
    tag: `localhost/mon:${VERSION}`,
    created: 0,
  });
  return built;
}

describe("the Dockerfile's final stage", () => {
  test("is read as docker build reads it: base, binary path, user, port, entrypoint and command", () => {
    const stage = finalStage(repositoryDockerfile(ROOT));
    expect(stage).toMatchObject({
      base: "gcr.io/distroless/cc-debian12:nonroot",
      binaryPath: "/usr/local/bin/mon",
      user: "65532:65532",
      exposedPorts: ["8060/tcp"],
      entrypoint: ["/usr/local/bin/mon"],
      cmd: ["run"],
    });
    expect(stage.labels["org.opencontainers.image.title"]).toBe("mon");
  });

  test("an instruction the assembler cannot reproduce is refused, naming its line", () => {
    const text =
      "FROM node AS build\nRUN npm ci\n\nFROM gcr.io/distroless/cc-debian12:nonroot\nCOPY --from=build /a /b\nRUN echo\n";
    expect(() => finalStage(text)).toThrow("Dockerfile line 6: RUN in the final stage is not reproduced");
    expect(() => finalStage("FROM x\nCOPY a /b\nCMD run\n")).toThrow(
      "Dockerfile line 3: ENTRYPOINT and CMD must be in exec form",
    );
  });
});

describe("a layer", () => {
  const entryArb: fc.Arbitrary<Entry> = fc
    .tuple(
      fc.array(fc.constantFrom("etc", "usr", "lib", "a b", "x.conf", "ü"), { minLength: 1, maxLength: 4 }),
      fc.nat(2),
      fc.uint8Array({ maxLength: 8 }),
    )
    .map(([parts, kind, data]) =>
      kind === 0
        ? file(parts.join("/"), data)
        : kind === 1
          ? directory(parts.join("/"), 0o750)
          : symlink(parts.join("/"), "target"),
    );

  test("is the same bytes whatever order its entries come in, and holds every parent directory", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entryArb, { maxLength: 12 }), fc.nat(), async (entries, seed) => {
        // Entries at distinct paths only: where two share a path the last wins, so order matters by design.
        const unique = [...new Map(entries.map((e) => [e.path, e])).values()];
        const shuffled = [...unique].sort(
          (a, b) => ((a.path.length * 31 + seed) % 7) - ((b.path.length * 31 + seed) % 7),
        );
        const [one, two] = await Promise.all([layerTar(unique, 0), layerTar(shuffled, 0)]);
        expect(Buffer.from(one).equals(Buffer.from(two))).toBe(true);
        const names = new Set((await readTar(one)).map((f) => f.name));
        for (const n of names) {
          const parent = n.split("/").slice(0, -1).join("/");
          if (parent) expect(names.has(parent)).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe("the image, assembled without a registry", () => {
  debianTest(
    "has the config docker build would write: the base's environment and home, the Dockerfile's user, entrypoint, command, port, labels",
    async () => {
      const { config, manifest, index } = await open((await image()).bytes);
      expect(manifest.RepoTags).toEqual([`localhost/mon:${VERSION}`]);
      expect(index.manifests[0].annotations["io.containerd.image.name"]).toBe(`localhost/mon:${VERSION}`);
      expect(config.os).toBe("linux");
      expect(config.config).toEqual({
        User: "65532:65532",
        Env: [
          "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
          "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
        ],
        WorkingDir: "/home/nonroot",
        Entrypoint: ["/usr/local/bin/mon"],
        Cmd: ["run"],
        ExposedPorts: { "8060/tcp": {} },
        Labels: finalStage(repositoryDockerfile(ROOT)).labels,
      });
    },
  );

  debianTest("holds what distroless cc-debian12:nonroot holds and the binary, nothing else", async () => {
    const { layers } = await open((await image()).bytes);
    const [base, app] = layers as [TarFile[], TarFile[]];
    // The binary alone in its own layer, where the Dockerfile copies it, executable by anyone.
    expect(
      app.filter((f) => f.type === "file").map((f) => [f.name, f.mode.toString(8), f.data.equals(Buffer.from(binary))]),
    ).toEqual([["usr/local/bin/mon", "755", true]]);
    const names = new Set(base.map((f) => f.name));
    // What distroless's own image test (base/testdata/base.yaml) requires of its base.
    for (const p of [
      "tmp",
      "etc/passwd",
      "etc/group",
      "etc/os-release",
      "etc/ssl/certs/ca-certificates.crt",
      "usr/share/doc/ca-certificates/copyright",
      "etc/services",
      "home",
    ])
      expect(names.has(p)).toBe(true);
    // Every file each of distroless's packages installs, at its merged-/usr path, and its dpkg record.
    const fromPackages = new Set<string>();
    for (const pkg of BASE_PACKAGES) {
      const listed = spawnSync("dpkg-query", ["-L", pkg], { encoding: "utf8" })
        .stdout.split("\n")
        .filter((p) => p.startsWith("/") && p !== "/.");
      for (const p of listed) fromPackages.add(merged(p.slice(1)));
      expect(names.has(`var/lib/dpkg/status.d/${pkg}`)).toBe(true);
    }
    for (const p of fromPackages)
      if (!["usr/bin", "usr/lib", "usr/lib64", "usr/sbin"].includes(p)) expect([p, names.has(p)]).toEqual([p, true]);
    // Nothing beyond: packages, their records, distroless's own files and their parent directories.
    const own = new Set([
      "bin",
      "lib",
      "lib64",
      "sbin",
      "etc/passwd",
      "etc/group",
      "etc/nsswitch.conf",
      "tmp",
      "root",
      "home",
      "home/nonroot",
      "etc/ssl/certs/ca-certificates.crt",
      "usr/share/doc/ca-certificates/copyright",
    ]);
    const extra = [...names].filter(
      (n) =>
        !fromPackages.has(n) &&
        !own.has(n) &&
        !n.startsWith("var/lib/dpkg/status.d/") &&
        !base.some((f) => f.name.startsWith(`${n}/`)),
    );
    expect(extra).toEqual([]);
    // Owned by root, but the nonroot user's home; /tmp writable by all with the sticky bit; no set-uid program.
    const owners = base.filter((f) => f.uid !== 0 || f.gid !== 0).map((f) => [f.name, f.uid, f.gid]);
    expect(owners).toEqual([["home/nonroot", 65532, 65532]]);
    expect(base.find((f) => f.name === "tmp")!.mode).toBe(0o1777);
    expect(base.filter((f) => f.type === "file" && (f.mode & 0o6000) !== 0).map((f) => f.name)).toEqual([]);
    const passwd = base.find((f) => f.name === "etc/passwd")!.data.toString();
    expect(passwd).toContain("nonroot:x:65532:65532:nonroot:/home/nonroot:");
    // The CA bundle is the package's certificates, every one of them.
    const bundle = base.find((f) => f.name === "etc/ssl/certs/ca-certificates.crt")!.data.toString();
    const certs = spawnSync("dpkg-query", ["-L", "ca-certificates"], { encoding: "utf8" })
      .stdout.split("\n")
      .filter((p) => p.startsWith("/usr/share/ca-certificates/") && p.endsWith(".crt"));
    expect(bundle.match(/-----BEGIN CERTIFICATE-----/g)?.length).toBe(certs.length);
  });

  debianTest(
    "is reproducible: the same inputs make the same digest; another binary or creation time another",
    async () => {
      const dockerfile = repositoryDockerfile(ROOT);
      const again = await buildImage({ binary, dockerfile, tag: `localhost/mon:${VERSION}`, created: 0 });
      expect(again.manifestDigest).toBe((await image()).manifestDigest);
      expect(Buffer.from(again.bytes).equals(Buffer.from((await image()).bytes))).toBe(true);
      const other = await buildImage({
        binary: new Uint8Array([1, 2]),
        dockerfile,
        tag: `localhost/mon:${VERSION}`,
        created: 0,
      });
      expect(other.layerDigests[0]).toBe(again.layerDigests[0]);
      expect(other.manifestDigest).not.toBe(again.manifestDigest);
      const later = await buildImage({ binary, dockerfile, tag: `localhost/mon:${VERSION}`, created: 1_700_000_000 });
      expect(later.manifestDigest).not.toBe(again.manifestDigest);
    },
  );

  rootTest(
    "the compiled binary starts inside it with nothing else present, as the image's user",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "mon-image-"));
      try {
        const real = await compiledImage(dir, "localhost/mon:test");
        const rootfs = join(dir, "rootfs");
        mkdirSync(rootfs);
        const { layers } = await open(real.bytes);
        for (const layer of layers)
          for (const f of layer) {
            const at = join(rootfs, f.name);
            if (f.type === "directory") mkdirSync(at, { recursive: true, mode: f.mode });
            else if (f.type === "symlink") spawnSync("ln", ["-s", f.linkname!, at]);
            else writeFileSync(at, f.data, { mode: f.mode });
            if (f.type !== "symlink") {
              chmodSync(at, f.mode);
              spawnSync("chown", [`${f.uid}:${f.gid}`, at]);
            }
          }
        mkdirSync(join(rootfs, "proc"), { recursive: true });
        writeFileSync(join(rootfs, "tmp", "config.yaml"), "app:\n  clusterName: image\n");
        const run = (args: string[]) =>
          spawnSync(
            "unshare",
            [
              "--mount",
              "--pid",
              "--fork",
              `--mount-proc=${join(rootfs, "proc")}`,
              "chroot",
              "--userspec=65532:65532",
              rootfs,
              "/usr/local/bin/mon",
              ...args,
            ],
            {
              encoding: "utf8",
              env: { PATH: "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", HOME: "/home/nonroot" },
            },
          );
        const version = run(["--version"]);
        expect(version.stdout.trim()).toBe(VERSION);
        expect(version.status).toBe(0);
        const lint = run(["lint", "--config", "/tmp/config.yaml"]);
        expect(lint.stdout).toContain("/tmp/config.yaml: valid (0 errors, 1 warning)");
        expect(lint.status).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
