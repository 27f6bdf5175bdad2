import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import { join } from "node:path";
import { writeBetweenMarkers } from "../generated-file.ts";
import { SERVICE_ACCOUNT_DIR } from "../../src/kube/in-cluster.ts";

const root = join(import.meta.dirname, "..", "..");

/**
 * Writes a benchmark's result: `scripts/bench/results/<name>.json`, and `text` between the markers
 * `<!-- name:begin -->` and `<!-- name:end -->` of docs/performance.md.
 */
export function publish(name: string, result: unknown, text: string): void {
  writeFileSync(join(root, "scripts", "bench", "results", `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
  writeBetweenMarkers(join(root, "docs", "performance.md"), `<!-- ${name}:begin -->`, `<!-- ${name}:end -->`, text);
  console.log(text);
}

/** Waits until mon's /readyz on 127.0.0.1:`port` answers 200 (required caches synced); throws after 60 s. */
export async function waitReady(port: number): Promise<void> {
  for (let i = 0; ; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (i > 600) throw new Error("mon did not become ready within 60 s");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts `mon run` as a user runs it, in its own process: the compiled binary when `dist/mon` exists
 * (`npm run build`), else the source with Bun. Writes `kubeconfig` and a configuration of `clusterName` with
 * `alert` (telemetry and the update check off, the health server on a free-looking port) into `work`, which is
 * also MON_DATA_DIR; `env` adds to the environment. Resolves once mon is ready (its /readyz answers 200).
 */
export async function startMon(options: {
  work: string;
  kubeconfig: string;
  clusterName: string;
  alert: Record<string, unknown>;
  env?: Record<string, string>;
  /**
   * Run as in a pod: no kubeconfig, the ServiceAccount's token and CA written where a pod has them
   * (/var/run/secrets/kubernetes.io/serviceaccount, so this needs root) and KUBERNETES_SERVICE_HOST/PORT set.
   */
  inCluster?: { server: string; token: string; ca: string };
}): Promise<{ mon: ChildProcess; port: number; compiled: boolean }> {
  const { work } = options;
  const inCluster = options.inCluster;
  if (inCluster) {
    mkdirSync(SERVICE_ACCOUNT_DIR, { recursive: true });
    writeFileSync(join(SERVICE_ACCOUNT_DIR, "token"), inCluster.token);
    writeFileSync(join(SERVICE_ACCOUNT_DIR, "ca.crt"), inCluster.ca);
  }
  writeFileSync(join(work, "kubeconfig"), options.kubeconfig);
  const port = 20_000 + Math.floor(Math.random() * 4_000);
  writeFileSync(
    join(work, "mon.yaml"),
    stringify({
      app: { clusterName: options.clusterName, disableStartupMessage: true },
      telemetry: { enabled: false },
      upgrader: { disableUpdateCheck: true },
      healthCheck: { port },
      alert: options.alert,
    }),
  );
  const binary = join(root, "dist", "mon");
  const compiled = existsSync(binary);
  const args = [
    "run",
    ...(inCluster ? [] : ["--kubeconfig", join(work, "kubeconfig")]),
    "--config",
    join(work, "mon.yaml"),
  ];
  const url = inCluster ? new URL(inCluster.server) : undefined;
  const { KUBECONFIG: _kubeconfig, ...inherited } = process.env;
  const env = {
    ...(inCluster ? inherited : process.env),
    MON_DATA_DIR: work,
    ...(url ? { KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port } : {}),
    ...options.env,
  };
  const mon = compiled
    ? spawn(binary, args, { stdio: "ignore", env })
    : spawn(process.execPath, [join(root, "src", "main.ts"), ...args], { stdio: "ignore", env });
  await waitReady(port);
  return { mon, port, compiled };
}
