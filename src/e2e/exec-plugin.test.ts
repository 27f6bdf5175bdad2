import { afterEach, describe, expect, test } from "bun:test";
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { type Simulator, startSimulator } from "../sim/simulator.ts";
import { waitUntil } from "../testing/capture-server.ts";

/**
 * A kubeconfig whose user is an exec credential plugin (issue 30): `mon run` in its own process, against the
 * simulator, with plugins that hang or answer an expired token. Each plugin run appends its pid and
 * KUBERNETES_EXEC_INFO to a file, so the test sees every run and whether it is still alive.
 */
const MAIN = join(import.meta.dir, "..", "main.ts");
let sim: Simulator | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
  await sim?.stop();
  sim = undefined;
});

function setUp(plugin: (token: string) => string, env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "mon-exec-"));
  const runs = join(dir, "runs");
  writeFileSync(runs, "");
  const script = join(dir, "credential-plugin");
  writeFileSync(script, `#!/bin/sh\necho "$$ $KUBERNETES_EXEC_INFO" >> ${runs}\n${plugin(sim!.token)}\n`);
  chmodSync(script, 0o755);
  const kubeconfig = parse(sim!.kubeconfig());
  kubeconfig.users[0].user = {
    exec: { apiVersion: "client.authentication.k8s.io/v1", command: script, interactiveMode: "Never" },
  };
  writeFileSync(join(dir, "kubeconfig"), stringify(kubeconfig));
  const port = 24_000 + Math.floor(Math.random() * 4_000);
  writeFileSync(
    join(dir, "config.yaml"),
    `app:\n  clusterName: prod\n  disableStartupMessage: true\nhealthCheck:\n  port: ${port}\nalert:\n  stdout: {}\n`,
  );
  const log: string[] = [];
  const child = spawn(
    process.execPath,
    [MAIN, "run", "--kubeconfig", join(dir, "kubeconfig"), "--config", join(dir, "config.yaml")],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, MON_DATA_DIR: dir, ...env },
    },
  );
  child.stdout?.on("data", (b) => log.push(String(b)));
  child.stderr?.on("data", (b) => log.push(String(b)));
  children.push(child);
  const pluginRuns = () =>
    readFileSync(runs, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const info = line.slice(line.indexOf(" ") + 1).trim();
        return { pid: Number(line.split(" ")[0]), info: info ? JSON.parse(info) : undefined };
      });
  return { child, log, port, pluginRuns };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").split(" ")[2]?.startsWith("Z");
  } catch {
    return false;
  }
};
const answers = (port: number, path: string) =>
  fetch(`http://127.0.0.1:${port}${path}`).then(
    (r) => r.status,
    () => 0,
  );

describe("a kubeconfig exec credential plugin", () => {
  test("one that never answers: mon still serves /healthz, says which plugin it waits for and gives up on it after MON_EXEC_TIMEOUT; stopping mon stops the plugin it runs", async () => {
    sim = await startSimulator();
    const mon = setUp(() => "exec sleep 3600", { MON_EXEC_TIMEOUT: "2" });
    await waitUntil(async () => (await answers(mon.port, "/healthz")) === 200, `/healthz (log: ${mon.log.join("")})`);
    await waitUntil(
      () =>
        /kubeconfig exec plugin credential-plugin gave no credential: no answer within 2 s; killed it/.test(
          mon.log.join(""),
        ),
      `the timeout in the log (log: ${mon.log.join("")})`,
    );
    expect(await answers(mon.port, "/readyz")).toBe(503);
    // Told what client-go tells a plugin: the ExecCredential version and that nobody is there to answer a prompt.
    expect(mon.pluginRuns()[0]!.info).toEqual({
      apiVersion: "client.authentication.k8s.io/v1",
      kind: "ExecCredential",
      spec: { interactive: false },
    });
    // The plugin that timed out was killed; a later run is killed with mon.
    await waitUntil(() => mon.pluginRuns().length >= 2, "a second run after the backoff");
    const [first, last] = [mon.pluginRuns()[0]!, mon.pluginRuns().at(-1)!];
    expect(alive(first.pid)).toBe(false);
    mon.child.kill("SIGTERM");
    await new Promise((r) => mon.child.once("exit", r));
    await waitUntil(() => !alive(last.pid), "the plugin to end with mon");
  }, 60_000);

  test("one that answers an already expired token: not run again at every request but after a backoff, and mon watches meanwhile", async () => {
    sim = await startSimulator();
    const mon = setUp(
      (token) =>
        `echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${token}","expirationTimestamp":"2020-01-01T00:00:00Z"}}'`,
    );
    await waitUntil(async () => (await answers(mon.port, "/readyz")) === 200, `ready (log: ${mon.log.join("")})`);
    const runsAtReady = mon.pluginRuns().length;
    // Every request carries the credential: end every watch each second (an API server restarting), so the
    // informers reopen theirs — dozens of requests in 8 s.
    const watches = sim.server.watchCount();
    for (let s = 0; s < 8; s++) {
      sim.server.dropWatches();
      await waitUntil(() => sim!.server.watchCount() >= watches, "the watches to be open again");
      await new Promise((r) => setTimeout(r, 1_000));
    }
    // Backoff 1, 2, 4, 8 s: a handful of runs, where every request ran it before (144 runs in 31 s).
    expect(sim.server.watchCount()).toBeGreaterThan(10);
    expect(mon.pluginRuns().length - runsAtReady).toBeLessThanOrEqual(4);
    expect(mon.log.join("")).toContain(
      "kubeconfig exec plugin credential-plugin answered a credential that expired at 2020-01-01T00:00:00.000Z; using it, asking again in",
    );
  }, 60_000);
});
