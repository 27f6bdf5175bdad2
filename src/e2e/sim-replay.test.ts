import { afterAll, describe, expect, test } from "bun:test";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TIMELINES_DIR } from "../sim/timeline.ts";
import { waitUntil } from "../testing/capture-server.ts";
import { KUBECTL, runKubectl } from "../testing/kubectl.ts";

const kubectl = KUBECTL;
const MAIN = join(import.meta.dirname, "..", "main.ts");
const dir = mkdtempSync(join(tmpdir(), "mon-sim-replay-"));
let sim: ChildProcess | undefined;
afterAll(() => void sim?.kill("SIGKILL"));

function kubectlRun(...args: string[]): Promise<{ status: number; out: string }> {
  return runKubectl(join(dir, "kubeconfig"), ...args);
}

// kubectl ships on this project's machines (the node image); the test says so when it is missing.
describe.skipIf(!kubectl)("mon sim --replay: a recorded timeline served to kubectl", () => {
  test("readiness_flap at 50× speed: the recorded pods, unready during the fault, ready at the end", async () => {
    let log = "";
    sim = spawn(
      process.execPath,
      [
        MAIN,
        "sim",
        "--kubeconfig",
        join(dir, "kubeconfig"),
        "--replay",
        join(TIMELINES_DIR, "readiness_flap"),
        "--speed",
        "50",
      ],
      { stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "", HOME: dir } },
    );
    sim.stdout?.on("data", (c: Buffer) => (log += c.toString()));
    sim.stderr?.on("data", (c: Buffer) => (log += c.toString()));
    await waitUntil(() => log.includes("replaying readiness_flap"), "the replay to start", 20_000);
    expect(log).toContain("events over 3 s");
    await waitUntil(() => log.includes("replay finished"), "the replay to finish", 20_000);
    const pods = await kubectlRun("get", "pods", "-n", "tl-readiness-flap", "--no-headers");
    expect(pods.status).toBe(0);
    const lines = pods.out.trim().split("\n");
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toMatch(/^search-\S+\s+1\/1\s+Running\s+0\s/);
  });

  test("a directory without a recording is refused with one line", async () => {
    const result = spawnSync(
      process.execPath,
      [MAIN, "sim", "--kubeconfig", join(dir, "k2"), "--replay", "/nonexistent/timeline"],
      { encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: dir }, timeout: 20_000 },
    );
    expect(result.status).toBe(1);
    expect(result.stdout + result.stderr).toContain(
      "timeline /nonexistent/timeline: cannot read initial.json (ENOENT)",
    );
  });
});
