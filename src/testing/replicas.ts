import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Simulator, startSimulator } from "../sim/simulator.ts";
import { type CaptureServer, startCaptureServer } from "./capture-server.ts";
import { type LicenseServer, startLicenseServer } from "./license-server.ts";
import { CLI_MAIN } from "./cli.ts";

/** One installation of mon on the simulator: its kubeconfig, webhook, license and the state volume its replicas share. */
export interface Installation {
  readonly dir: string;
  readonly kubeconfig: string;
  readonly data: string;
  readonly webhookUrl: string;
  readonly licenseUrl: string;
  readonly licenseKey: string;
}

/** A `mon run` process of an installation, as one pod of its Deployment. */
export interface Replica {
  readonly name: string;
  /** Base URL of its health server. */
  readonly health: string;
  readonly child: ChildProcess;
  /** What it wrote to stdout and stderr. */
  readonly log: string[];
  /** True once it logged that it acquired the state lock. */
  leads(): boolean;
  /** True while it holds the state lock: it acquired it more often than it lost it (issue 53: it campaigns again). */
  leading(): boolean;
  /** How often it acquired the state lock. */
  terms(): number;
  /** Resolves with its exit code. */
  exited(): Promise<number | null>;
}

/** Creates the shared files of an installation (a temporary directory). */
export function createInstallation(
  sim: Simulator,
  options: { webhookUrl: string; licenseUrl: string; licenseKey: string },
): Installation {
  const dir = mkdtempSync(join(tmpdir(), "mon-install-"));
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, sim.kubeconfig());
  return { dir, kubeconfig, data: join(dir, "data"), ...options };
}

/**
 * Starts one replica (`mon run` in its own process) with the environment a Deployment's pod gets: POD_NAME,
 * POD_NAMESPACE `mon`, POD_UID, NODE_NAME and MON_INSTALLATION_ID `mon` (the Lease `mon/mon-leader`), Pro
 * through the installation's license (Community when its key is empty), its health server on a free loopback
 * port.
 */
export async function startReplica(
  installation: Installation,
  name: string,
  options: {
    kubeconfig?: string;
    env?: Record<string, string>;
    statusEndpoint?: boolean;
    diagnosticsToken?: string;
    /** The webhook's `hourlyBudget` (new conversations per hour; the schema's default when absent). */
    hourlyBudget?: number;
    /** `healthCheck.address` (mon's own choice when absent). */
    healthAddress?: string;
  } = {},
): Promise<Replica> {
  const log: string[] = [];
  // Its own credentials when given (a test cuts one replica off the API server by revoking them).
  let kubeconfig = installation.kubeconfig;
  if (options.kubeconfig) {
    kubeconfig = join(installation.dir, `${name}.kubeconfig`);
    writeFileSync(kubeconfig, options.kubeconfig);
  }
  const port = await freePort();
  // The diagnostics token as a mounted Secret would give it: a file the configuration references.
  const tokenFile = join(installation.dir, `${name}.diagnostics-token`);
  if (options.diagnosticsToken) writeFileSync(tokenFile, `${options.diagnosticsToken}\n`);
  const config = join(installation.dir, `${name}.yaml`);
  writeFileSync(
    config,
    [
      "app:",
      "  clusterName: prod",
      "healthCheck:",
      `  port: ${port}`,
      ...(options.healthAddress ? [`  address: "${options.healthAddress}"`] : []),
      ...(options.statusEndpoint ? ["  statusEndpoint: true"] : []),
      ...(options.diagnosticsToken ? ["  diagnostics:", "    enabled: true", `    token: \${file:${tokenFile}}`] : []),
      // An empty key: a Community installation.
      ...(installation.licenseKey ? ["license:", `  key: ${installation.licenseKey}`] : []),
      "alert:",
      "  webhook:",
      `    url: ${installation.webhookUrl}`,
      ...(options.hourlyBudget !== undefined ? [`    hourlyBudget: ${options.hourlyBudget}`] : []),
      "",
    ].join("\n"),
  );
  const child = spawn(process.execPath, [CLI_MAIN, "run", "--kubeconfig", kubeconfig, "--config", config], {
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      MON_DATA_DIR: installation.data,
      MON_LICENSE_URL: installation.licenseUrl,
      MON_INSTALLATION_ID: "mon",
      POD_NAME: name,
      POD_NAMESPACE: "mon",
      POD_UID: `uid-${name}`,
      NODE_NAME: "worker-1",
      ...options.env,
    },
  });
  child.stdout?.on("data", (b) => log.push(String(b)));
  child.stderr?.on("data", (b) => log.push(String(b)));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    name,
    health: `http://127.0.0.1:${port}`,
    child,
    log,
    leads: () => log.join("").includes("leadership acquired"),
    leading: () => count(log, "leadership acquired") > count(log, "leadership lost"),
    terms: () => count(log, "leadership acquired"),
    exited: () => exit,
  };
}

function count(log: readonly string[], words: string): number {
  return log.join("").split(words).length - 1;
}

/** A free loopback port (each pod has its own network in a cluster; here the replicas share one). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** What an end-to-end test of replicas runs beside them: the simulator, a webhook capture server, a license server. */
export interface TestBed {
  readonly sim: Simulator;
  readonly hook: CaptureServer;
  readonly licenses: LicenseServer;
  /**
   * An installation on this bed, with a license key the bed's license server issued ("licensed": its replicas
   * activate it over HTTP as the shipped binary does, and Pro follows from the license) or without one
   * ("unlicensed": Community). Nothing here sets the edition itself.
   */
  installation(license: "licensed" | "unlicensed"): Installation & { readonly key: string };
  /** Starts a replica that `stop()` kills. */
  replica(files: Installation, name: string, options?: Parameters<typeof startReplica>[2]): Promise<Replica>;
  /** Kills every replica and stops the servers. */
  stop(): Promise<void>;
}

/** Starts a test bed with the namespace `mon` created. */
export async function startTestBed(): Promise<TestBed> {
  const sim = await startSimulator();
  sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "mon" } });
  const hook = await startCaptureServer();
  const licenses = await startLicenseServer(() => Date.now());
  const replicas: Replica[] = [];
  return {
    sim,
    hook,
    licenses,
    installation(license) {
      const key = license === "licensed" ? licenses.addLicense() : "";
      return {
        ...createInstallation(sim, { webhookUrl: `${hook.url}/mon`, licenseUrl: licenses.url, licenseKey: key }),
        key,
      };
    },
    async replica(files, name, options) {
      const r = await startReplica(files, name, options);
      replicas.push(r);
      return r;
    },
    async stop() {
      for (const r of replicas.splice(0)) r.child.kill("SIGKILL");
      await hook.close();
      await licenses.close();
      await sim.stop();
    },
  };
}
