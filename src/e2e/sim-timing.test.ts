import { afterAll, describe, expect, test } from "bun:test";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { timingProfileFromSeed } from "../sim/controllers/timing-profiles.ts";
import { waitUntil } from "../testing/capture-server.ts";
import { CLI_MAIN } from "../testing/cli.ts";
import { KUBECTL, runKubectl } from "../testing/kubectl.ts";

/**
 * `mon sim --timing FILE|seed:N --story NAME` (docs/simulator.md "Timing profiles"): a user sees by hand what the
 * timing-invariance property runs, with the controllers on the timing given.
 */
const dir = mkdtempSync(join(tmpdir(), "mon-sim-timing-"));
const env = { PATH: process.env.PATH ?? "", HOME: dir };
let sim: ChildProcess | undefined;
afterAll(() => void sim?.kill("SIGKILL"));

describe("mon sim --timing and --story", () => {
  test.skipIf(!KUBECTL)(
    "a profile from a file: the story's crash loop restarts on its 1-second back-off, not the kubelet's default 10 s doubling",
    async () => {
      const file = join(dir, "fast.json");
      writeFileSync(
        file,
        JSON.stringify({
          story: "crash-young-nodes",
          timing: { controllers: { crashBackOffMs: [1000], startMs: 200 } },
        }),
      );
      let log = "";
      sim = spawn(
        process.execPath,
        [CLI_MAIN, "sim", "--kubeconfig", join(dir, "kubeconfig"), "--timing", file, "--story", "crash-young-nodes"],
        { stdio: ["ignore", "pipe", "pipe"], env },
      );
      sim.stdout?.on("data", (c: Buffer) => (log += c.toString()));
      sim.stderr?.on("data", (c: Buffer) => (log += c.toString()));
      await waitUntil(() => log.includes("story: kubectl apply"), "the story to start", 20_000);
      expect(log).toContain("timing: crash back-off 1.0 s; pod start 0.2 s");
      expect(log).toContain("story crash-young-nodes: a Deployment behind a Service crash-loops");
      // Under the default back-off (10 s, 20 s, 40 s) a third restart takes over a minute.
      const restarts = async () => {
        const out = await runKubectl(
          join(dir, "kubeconfig"),
          "get",
          "pods",
          "-n",
          "shop",
          "-o",
          "jsonpath={.items[*].status.containerStatuses[0].restartCount}",
        );
        return Math.min(...out.out.trim().split(/\s+/).map(Number));
      };
      await waitUntil(async () => (await restarts()) >= 3, "both pods to restart three times", 30_000);
    },
    60_000,
  );

  test("seed:N is the profile the property draws from that seed, said on startup", async () => {
    const profile = timingProfileFromSeed(7);
    let log = "";
    const child = spawn(
      process.execPath,
      [CLI_MAIN, "sim", "--kubeconfig", join(dir, "k-seed"), "--timing", "seed:7"],
      { stdio: ["ignore", "pipe", "pipe"], env },
    );
    child.stdout?.on("data", (c: Buffer) => (log += c.toString()));
    child.stderr?.on("data", (c: Buffer) => (log += c.toString()));
    try {
      await waitUntil(() => log.includes("kubeconfig written"), "the simulator to serve", 20_000);
      const backOff = profile.crashBackOffMs.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(", ");
      expect(log).toContain(`timing: crash back-off ${backOff}; pod start ${(profile.startMs / 1000).toFixed(1)} s`);
    } finally {
      child.kill("SIGKILL");
    }
  });

  test("a profile with a wrong value, or an unknown story, is refused with one line naming it", () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ crashBackOffMs: [1000, "2s"] }));
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [CLI_MAIN, "sim", "--kubeconfig", join(dir, "k-bad"), ...args], {
        encoding: "utf8",
        env,
        timeout: 20_000,
      });
    const wrong = run("--timing", bad);
    expect(wrong.status).toBe(1);
    expect(wrong.stdout + wrong.stderr).toContain(`--timing ${bad}: key crashBackOffMs.1: Invalid type`);
    expect((wrong.stdout + wrong.stderr).split("\n").filter((l) => l.includes("--timing")).length).toBe(1);
    const unknown = run("--story", "no-such-story");
    expect(unknown.status).toBe(1);
    expect(unknown.stdout + unknown.stderr).toContain("unknown story no-such-story; known: demo, crash-young-nodes");
  });
});
