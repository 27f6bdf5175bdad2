import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { type AddressInfo, createServer } from "node:net";
import { startSimulator } from "../sim/simulator.ts";
import { CLI_MAIN as MAIN, runCli } from "../testing/cli.ts";

const dir = mkdtempSync(join(tmpdir(), "mon-cli-"));

function mon(args: string[], env: Record<string, string> = {}) {
  return runCli(args, { env, home: dir });
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("the first hour: mon run says what is wrong in one line (spec 7.2)", () => {
  const oneLine = (r: { code: number; stdout: string; stderr: string }) => {
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toMatch(/^\s+at /m);
  };

  test("no kubeconfig anywhere", async () => {
    const r = await mon(["run"], { HOME: mkdtempSync(join(tmpdir(), "mon-home-")) });
    oneLine(r);
    expect(r.stdout + r.stderr).toContain("no kubeconfig found: pass --kubeconfig FILE or set KUBECONFIG");
  });

  test("KUBERNETES_SERVICE_HOST set without the ServiceAccount files", async () => {
    const r = await mon(["run"], { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" });
    oneLine(r);
    expect(r.stdout + r.stderr).toContain(
      "KUBERNETES_SERVICE_HOST is set but /var/run/secrets/kubernetes.io/serviceaccount/token does not exist",
    );
  });

  test("a kubeconfig that client-node cannot use (a plain-http server)", async () => {
    const kubeconfig = file(
      "http.kubeconfig",
      "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'http://127.0.0.1:1'}}]\ncontexts: [{name: c, context: {cluster: c}}]\ncurrent-context: c\n",
    );
    const r = await mon(["run", "--kubeconfig", kubeconfig]);
    oneLine(r);
    expect(r.stdout + r.stderr).toContain("cannot use kubeconfig");
  });

  test("the health port is taken; otherwise the log names where the health server really listens", async () => {
    const sim = await startSimulator();
    const blocker = createServer();
    try {
      await new Promise<void>((resolve) => blocker.listen(0, "0.0.0.0", resolve));
      const port = (blocker.address() as AddressInfo).port;
      const kubeconfig = file("sim.kubeconfig", sim.kubeconfig());
      const r = await mon([
        "run",
        "--kubeconfig",
        kubeconfig,
        "--config",
        file("port.yaml", `healthCheck:\n  port: ${port}\n`),
      ]);
      oneLine(r);
      expect(r.stdout + r.stderr).toContain(
        `health server: port ${port} is already in use on 127.0.0.1; free it or set healthCheck.port`,
      );
    } finally {
      blocker.close();
      await sim.stop();
    }
  }, 30_000);
});

describe("mon CLI", () => {
  test("--version prints the package version", async () => {
    expect(await mon(["--version"])).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  test("--help lists every command and --version, without colour codes when the output is not a terminal", async () => {
    const { stdout } = await mon(["--help"]);
    for (const command of ["run", "lint", "features", "demo", "sim", "install"])
      expect(stdout).toMatch(new RegExp(`^ +${command} `, "m"));
    expect(stdout).toContain("--version, -v");
    expect(stdout).not.toContain("\u001b[");
    expect((await mon(["lint", "--help"])).stdout).not.toContain("\u001b[");
  });

  test("features lists the feature catalog and all 55 alert providers with their kinds", async () => {
    const { code, stdout } = await mon(["features", "--format", "json"]);
    expect(code).toBe(0);
    const { features, providers } = JSON.parse(stdout) as {
      features: unknown[];
      providers: { name: string; kind: string }[];
    };
    expect(features.length).toBeGreaterThan(0);
    expect(providers).toHaveLength(55);
    expect(providers.find((p) => p.name === "alert.pagerDuty")).toMatchObject({ kind: "paging" });
    // The text names its sections, uses the configuration's key names, and lists the debugging provider.
    const text = (await mon(["features"])).stdout;
    expect(text).toContain("Features (");
    expect(text).toContain("Alert providers (55;");
    expect(text).toMatch(/For debugging \(mon demo\):\nalert\.stdout\s+Standard output/);
    expect(text).toMatch(/^severityByReason\s+Pro/m);
    expect(text).toMatch(/^severityByOwnerKind\s+Pro/m);
    expect(text).not.toContain("severityOverrides");
  });

  test("run refuses to start when CONFIG_FILE names a missing file", async () => {
    const { code, stderr } = await mon(["run"], { CONFIG_FILE: join(dir, "missing.yaml") });
    expect(code).toBe(1);
    expect(stderr).toContain(`CONFIG_FILE: configuration file ${join(dir, "missing.yaml")} does not exist`);
  });

  test("run with a kubeconfig whose CA is wrong logs a clear TLS error as JSON lines and keeps retrying (reported, never silent)", async () => {
    const { startSimulator } = await import("../sim/simulator.ts");
    const { createSimPki } = await import("../sim/pki.ts");
    const { renderKubeconfig } = await import("../sim/kubeconfig.ts");
    const sim = await startSimulator();
    try {
      const path = file(
        "wrong-ca.kubeconfig",
        renderKubeconfig({ server: sim.server.url, caCert: createSimPki("other").caCert, token: sim.token }),
      );
      const child = spawn(process.execPath, [MAIN, "run", "--kubeconfig", path], {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: dir,
          CONFIG_FILE: file("hc.yaml", "healthCheck:\n  enabled: false\napp:\n  logFormatter: json\n"),
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      const { waitUntil } = await import("../testing/capture-server.ts");
      await waitUntil(() => stderr.includes("TLS verification of"), "the TLS error in the log", 10_000);
      expect(child.exitCode).toBeNull();
      child.kill("SIGTERM");
      await new Promise((r) => child.on("close", r));
      expect(stderr).toContain(`TLS verification of ${sim.server.url} failed`);
      expect(stderr).toMatch(/retrying (with backoff|every \d+ s)/);
      // app.logFormatter json: one JSON object per line.
      const lines = stderr
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { level: string; msg: string; time: string });
      expect(lines.find((l) => l.msg.includes("TLS verification of"))).toMatchObject({ level: "warn" });
      expect(lines.every((l) => typeof l.time === "string")).toBe(true);
    } finally {
      await sim.stop();
    }
  });
});
