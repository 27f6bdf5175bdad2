import { afterEach, describe, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimulator, type Simulator } from "../sim/simulator.ts";
import { startCaptureServer, waitUntil, type CaptureServer } from "../testing/capture-server.ts";
import { crashPod, seedShop } from "../testing/cluster.ts";
import { type LicenseServer, startLicenseServer } from "../testing/license-server.ts";

const MAIN = join(import.meta.dir, "..", "main.ts");
let sim: Simulator | undefined;
let hook: CaptureServer | undefined;
let licenses: LicenseServer | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
  await hook?.close();
  await licenses?.close();
  await sim?.stop();
  sim = hook = licenses = undefined;
});

/**
 * Starts `mon run` in its own process, Pro through the test license server (the persisted outbox and state
 * file are Pro); its log is kept for the failure message.
 */
function daemon(files: { kubeconfig: string; config: string; data: string }): { child: ChildProcess; log: string[] } {
  const log: string[] = [];
  const child = spawn(process.execPath, [MAIN, "run", "--kubeconfig", files.kubeconfig, "--config", files.config], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, MON_DATA_DIR: files.data, MON_LICENSE_URL: licenses?.url ?? "", POD_NAMESPACE: "mon" },
  });
  child.stdout?.on("data", (b) => log.push(String(b)));
  child.stderr?.on("data", (b) => log.push(String(b)));
  children.push(child);
  return { child, log };
}

describe("restart: the outbox survives the process (spec 1.9, 6)", () => {
  test("SIGKILL with a message in the outbox: the next process delivers it; a corrupted state.db is set aside and mon keeps running", async () => {
    sim = await startSimulator();
    sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "mon" } });
    hook = await startCaptureServer();
    licenses = await startLicenseServer(() => Date.now());
    const key = licenses.addLicense();
    const dir = mkdtempSync(join(tmpdir(), "mon-restart-"));
    const files = { kubeconfig: join(dir, "kubeconfig"), config: join(dir, "config.yaml"), data: join(dir, "data") };
    writeFileSync(files.kubeconfig, sim.kubeconfig());
    writeFileSync(
      files.config,
      `app:\n  clusterName: prod\nhealthCheck:\n  enabled: false\nlicense:\n  key: ${key}\nalert:\n  webhook:\n    url: ${hook.url}/mon\n`,
    );
    seedShop(sim, Date.now());
    crashPod(sim, "shop", "web-abc12-p0", 5, Date.now());

    // The provider is down: the startup summary waits in the outbox.
    hook.setDefault({ status: 503, body: "down" });
    const first = daemon(files);
    await waitUntil(() => hook!.requests.length >= 1, `a first attempt (log: ${first.log.join("")})`, 20_000);
    // The webhook body names each message by `messageId`: the resumed one must carry the same.
    const summaryId = hook.requests[0]!.json().messageId as string;
    expect(summaryId).toMatch(/#/);
    first.child.kill("SIGKILL");
    await new Promise((r) => first.child.once("exit", r));

    // Back up, a new process with the same MON_DATA_DIR: the message from the outbox arrives.
    hook.setDefault({ status: 200, body: "ok" });
    const attempts = hook.requests.length;
    const second = daemon(files);
    await waitUntil(
      () => hook!.requests.slice(attempts).some((r) => r.json().messageId === summaryId),
      `the resumed message (log: ${second.log.join("")})`,
      20_000,
    );
    expect(second.log.join("")).toMatch(/resumed \d+ message\(s\) left in the outbox by the previous process/);
    // The second process renewed the binding the first one made: one activation in all.
    expect(licenses.calls("/v1/activate")).toBe(1);
    expect(licenses.calls("/v1/renew")).toBeGreaterThanOrEqual(1);
    second.child.kill("SIGKILL");
    await new Promise((r) => second.child.once("exit", r));

    // A state file that cannot be read is set aside; the daemon starts and delivers anyway.
    writeFileSync(join(files.data, "state.db"), "this is not a SQLite file ".repeat(400));
    for (const suffix of ["-wal", "-shm"])
      if (existsSync(join(files.data, `state.db${suffix}`))) writeFileSync(join(files.data, `state.db${suffix}`), "");
    const before = hook.requests.length;
    const third = daemon(files);
    await waitUntil(
      () => hook!.requests.length > before,
      `a delivery after the reset (log: ${third.log.join("")})`,
      20_000,
    );
    expect(existsSync(join(files.data, "state.db.corrupt"))).toBe(true);
    expect(third.log.join("")).toContain("set aside as state.db.corrupt and recreated");
    expect(third.child.exitCode).toBeNull();
  }, 60_000);
});
