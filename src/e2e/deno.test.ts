import { expect } from "bun:test";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { startSimulator } from "../sim/simulator.ts";
import { startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { crashPod, seedShop } from "../testing/cluster.ts";
import { BINARIES, realTest } from "../testing/real-components.ts";
import { realKube, realKubeTest } from "../testing/real-kube.ts";

/**
 * `mon run` under Deno (issue 43): the source run by Deno 2.9, connected over TLS with a client certificate to
 * the simulator's API server, tells a webhook a crash loop — the runtime the design card promises besides Bun.
 */
const track = useCleanup();
const root = join(import.meta.dirname, "..", "..");
const denoTest = realTest("mon run under Deno", "deno");

/**
 * `deno run -A src/main.ts run` against `kubeconfig` as cluster `clusterName`, telling the webhook at `hookUrl`;
 * killed when the test ends. `log()` is what it wrote so far.
 */
function monUnderDeno(clusterName: string, kubeconfig: string, hookUrl: string): { log(): string } {
  const dir = mkdtempSync(join(tmpdir(), "mon-deno-run-"));
  writeFileSync(
    join(dir, "mon.yaml"),
    stringify({
      app: { clusterName },
      telemetry: { enabled: false },
      upgrader: { disableUpdateCheck: true },
      healthCheck: { enabled: false },
      alert: { webhook: { url: hookUrl } },
    }),
  );
  const args = ["run", "-A", "src/main.ts", "run", "--kubeconfig", kubeconfig, "--config", join(dir, "mon.yaml")];
  let log = "";
  const mon: ChildProcess = spawn(BINARIES.deno!, args, { cwd: root, env: { ...process.env, MON_DATA_DIR: dir } });
  mon.stdout?.on("data", (d) => (log += d));
  mon.stderr?.on("data", (d) => (log += d));
  track({ close: async () => void mon.kill("SIGKILL") });
  return { log: () => log };
}

denoTest(
  "mon run under Deno: a client-certificate kubeconfig over TLS, a crash loop told to a webhook",
  async () => {
    const sim = track(await startSimulator());
    const hook = track(await startCaptureServer());
    seedShop(sim, Date.now());
    crashPod(sim, "shop", "api-abc12-p0", 4, Date.now());
    const kubeconfig = join(mkdtempSync(join(tmpdir(), "mon-deno-")), "kubeconfig");
    writeFileSync(kubeconfig, sim.kubeconfig({ clientCert: true, token: false }));
    const mon = monUnderDeno("deno", kubeconfig, `${hook.url}/mon`);
    try {
      // The crash loop is there when mon starts: the first pass tells it in the startup summary, once the
      // informers have synced through Deno's TLS client.
      await waitUntil(
        () => hook.requests.some((r) => r.json().covers?.includes("Deployment/shop/api")),
        "the startup summary naming the crash loop",
        60_000,
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}; mon under Deno said:\n${mon.log()}`);
    }
    const told = hook.requests.map((r) => r.json()).find((m) => m.covers?.includes("Deployment/shop/api"));
    expect(told.delivery).toBe("startup summary");
    expect(told.text).toContain("deployment shop/api: CrashLoopBackOff in 1 pod");
  },
  120_000,
);

const onRealKube = BINARIES.deno ? realKubeTest("mon run under Deno on the real control plane") : denoTest;

onRealKube(
  "mon run under Deno against the real v1.32 control plane: the admin's client certificate over TLS, watches synced, the welcome told",
  async () => {
    const kube = await realKube();
    const hook = track(await startCaptureServer());
    const mon = monUnderDeno("deno-real", kube.kubeconfigPath, `${hook.url}/mon`);
    // The welcome is told once every required watch has synced through Deno's TLS client.
    await waitUntil(
      () => hook.requests.some((r) => r.json().text?.includes("started watching deno-real")),
      "the welcome",
      90_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; mon under Deno said:\n${mon.log()}`);
    });
    expect(mon.log()).toContain(`watching ${kube.url}`);
  },
  150_000,
);
