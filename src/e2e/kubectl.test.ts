import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimulator, type Simulator } from "../sim/simulator.ts";
import { waitUntil } from "../testing/capture-server.ts";
import { KUBECTL, runKubectl } from "../testing/kubectl.ts";

const kubectl = KUBECTL;
const dir = mkdtempSync(join(tmpdir(), "mon-kubectl-"));
let sim: Simulator;
let kubeconfig: string;

beforeAll(async () => {
  sim = await startSimulator();
  kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, sim.kubeconfig());
});
afterAll(async () => {
  await sim.stop();
});

/** Runs kubectl without blocking: the simulator answers from this same process. */
function run(...args: string[]): Promise<{ status: number; out: string }> {
  return runWith(kubeconfig, ...args);
}

function runWith(config: string, ...args: string[]): Promise<{ status: number; out: string }> {
  return runKubectl(config, ...args);
}

// kubectl ships on this project's machines (the node image); the test says so when it is missing.
describe.skipIf(!kubectl)("the real kubectl against the simulator", () => {
  test("apply -f creates, re-apply is unchanged, get shows the server's table", async () => {
    const manifest = join(dir, "pod.yaml");
    writeFileSync(
      manifest,
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  nodeName: n1\n  containers: [{name: app, image: 'nginx:1.27'}]\n",
    );
    expect(await run("apply", "-f", manifest)).toEqual({ status: 0, out: "pod/web created\n" });
    expect(await run("apply", "-f", manifest)).toEqual({ status: 0, out: "pod/web unchanged\n" });
    const get = await run("get", "pods", "-o", "wide");
    expect(get.status).toBe(0);
    expect(get.out).toMatch(
      /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\nweb\s+0\/1\s+Pending\s+0\s+\d+s\s+<none>\s+n1\n$/,
    );
  });

  test("get -w streams the change made by patch --subresource=status", async () => {
    const watcher = spawn(
      kubectl ?? "kubectl",
      ["--kubeconfig", kubeconfig, "get", "pods", "-w", "--request-timeout=0"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    watcher.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    try {
      await waitUntil(() => out.includes("web"), "the initial listing", 10_000);
      const patched = await run(
        "patch",
        "pod",
        "web",
        "--subresource=status",
        "--type=merge",
        "-p",
        '{"status":{"phase":"Running","containerStatuses":[{"name":"app","ready":false,"restartCount":4,"image":"nginx:1.27","imageID":"","state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}}',
      );
      expect(patched).toEqual({ status: 0, out: "pod/web patched\n" });
      await waitUntil(() => out.includes("CrashLoopBackOff"), "the watch event", 10_000);
      expect(out).toMatch(/web\s+0\/1\s+CrashLoopBackOff\s+4\s+\d+s/);
    } finally {
      watcher.kill();
    }
  });

  test("selectors, a client certificate instead of a token, and delete", async () => {
    expect(await run("get", "pods", "-l", "app=web", "--field-selector", "spec.nodeName=n1", "-o", "name")).toEqual({
      status: 0,
      out: "pod/web\n",
    });
    expect((await run("get", "pods", "-l", "app in (db)")).out).toContain("No resources found");
    const certConfig = join(dir, "cert-kubeconfig");
    writeFileSync(certConfig, sim.kubeconfig({ clientCert: true, token: false }));
    expect(await runWith(certConfig, "get", "pod", "web", "-o", "jsonpath={.status.phase}")).toEqual({
      status: 0,
      out: "Running",
    });
    expect((await run("delete", "pod", "web", "--grace-period=0", "--force")).status).toBe(0);
    expect((await run("get", "pod", "web")).out).toContain('pods "web" not found');
  });
});
