import { test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, renameSync, statSync } from "node:fs";
import { copyFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { findBinary } from "./real-components.ts";

/**
 * A real Kubernetes v1.32 control plane for the tests that prove mon against the real thing (issue 40): etcd,
 * kube-apiserver, kube-controller-manager (node lifecycle on) and kube-scheduler from `../shared/kube` beside
 * the repository (or `MON_KUBE_DIR`), started once per test process on free loopback ports with a state
 * directory of its own, and stopped when the process ends (a watchdog stops it if the process dies). There is no
 * kubelet: tests run the kubelet stand-in (src/sim/standin). `.ci/run` sets `MON_REAL_COMPONENTS=required`:
 * there a missing control plane fails the test; elsewhere the test is skipped with one line saying why.
 */

/** The folder of the control plane's scripts and compressed binaries. */
export const KUBE_DIR = process.env.MON_KUBE_DIR ?? resolve(import.meta.dirname, "../../../shared/kube");

/** Why the real control plane cannot run here, or undefined when it can. */
export function realKubeMissing(): string | undefined {
  if (!existsSync(join(KUBE_DIR, "start.sh"))) return `no control plane at ${KUBE_DIR} (set MON_KUBE_DIR)`;
  const tools = ["xz", "openssl", "curl"].filter((t) => !findBinary(t));
  if (tools.length) return `${tools.join(", ")} not installed (Debian: xz-utils, openssl, curl)`;
  return undefined;
}

/**
 * `test` (`test.concurrent` with `concurrent`) when the real control plane can run here or CI requires it (a
 * missing one then fails the test, saying what is missing); otherwise `test.skip`, with one printed line saying
 * what was skipped and why.
 */
export function realKubeTest(what: string, options: { concurrent?: boolean } = {}): typeof test {
  const missing = realKubeMissing();
  // Tests of one file that each wait on real time run side by side (bun's test.concurrent).
  if (!missing) return (options.concurrent ? test.concurrent : test) as typeof test;
  if (process.env.MON_REAL_COMPONENTS === "required")
    return ((name: string, _body: unknown, timeout?: number) =>
      test(
        name,
        () => {
          throw new Error(`the real control plane cannot run: ${missing}`);
        },
        timeout,
      )) as unknown as typeof test;
  console.log(`skipped: ${what}: ${missing}`);
  return test.skip;
}

/** A running real control plane. */
export interface RealKube {
  /** https://127.0.0.1:<port> */
  readonly url: string;
  /** The admin kubeconfig (system:masters, client certificate). */
  readonly kubeconfigPath: string;
  readonly kubeconfigText: string;
  /** The state directory: logs/, data/, pki/. */
  readonly stateDir: string;
  /**
   * kubectl v1.32 against it: exit status and output (stdout then stderr). Asynchronous: the kubelet stand-in
   * runs in this process, and a request the API server passes on to a kubelet (`kubectl logs`) needs it to answer.
   */
  kubectl(args: readonly string[], input?: string): Promise<{ status: number; output: string }>;
}

/** The control-plane components a fault stops (../shared/kube's pid files name them). */
export type ControlPlaneComponent = "etcd" | "kube-apiserver" | "kube-controller-manager" | "kube-scheduler";

/** A control plane of a test's own, whose components the test may stop and start again (issue 53's faults). */
export interface OwnControlPlane extends RealKube {
  /** Kills a component (SIGKILL, as a crash or an OOM kill would); false when it was not running. */
  kill(component: ControlPlaneComponent): boolean;
  /** Starts every component that is not running (start.sh is idempotent), as a kubelet or systemd would. */
  startStopped(): Promise<void>;
  /** Stops it and removes its state. */
  close(): void;
}

let started: Promise<RealKube> | undefined;

/**
 * The control plane of this test process, started on first use (about 15 s; the binaries are unpacked once per
 * machine into the temporary folder, about 20 s more). Throws with the start script's output when it cannot
 * start.
 */
export function realKube(): Promise<RealKube> {
  started ??= startControlPlane();
  return started;
}

/**
 * A control plane of its own (another state directory, other free ports), stopped when the process ends: for
 * tests that stop its components (issue 53), which the shared one's other tests must not see.
 */
export async function startControlPlane(): Promise<OwnControlPlane> {
  const missing = realKubeMissing();
  if (missing) throw new Error(`the real control plane cannot run: ${missing}`);
  const stateDir = mkdtempSync(join(tmpdir(), "mon-kube-"));
  linkBinaries(join(stateDir, "bin"));
  const ports = await freePorts(5);
  const env = {
    ...process.env,
    KUBE_STATE_DIR: stateDir,
    KUBE_API_PORT: String(ports[0]),
    KUBE_ETCD_PORT: String(ports[1]),
    KUBE_ETCD_PEER_PORT: String(ports[2]),
    KUBE_KCM_PORT: String(ports[3]),
    KUBE_SCHED_PORT: String(ports[4]),
    NODE_LIFECYCLE: "1",
    KUBE_START_TIMEOUT: "180",
  };
  const startScript = () =>
    new Promise<{ status: number | null; output: string }>((done) => {
      const child = spawn("bash", [join(KUBE_DIR, "start.sh")], { env, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.on("data", (b: Buffer) => (output += b.toString()));
      child.stderr.on("data", (b: Buffer) => (output += b.toString()));
      child.on("close", (status) => done({ status, output }));
    });
  const run = await startScript();
  let starting: Promise<void> = Promise.resolve();
  const kubeconfigPath = join(stateDir, "kubeconfig");
  // Stopped, and its state (etcd's data, logs) removed: every test process starts from an empty cluster.
  const stop = () =>
    spawnSync("bash", ["-c", 'bash "$0"; rm -rf "$1"', join(KUBE_DIR, "stop.sh"), stateDir], {
      env: { ...env, KUBE_STOP_GRACE: "5" },
    });
  if (run.status !== 0 || !existsSync(kubeconfigPath)) {
    stop();
    throw new Error(`the real control plane did not start: ${run.output.slice(-3_000)}`);
  }
  process.once("exit", () => stop());
  // Stops it should this process die without running its exit handlers.
  spawn(
    "bash",
    [
      "-c",
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 2; done; KUBE_STOP_GRACE=5 bash "$0"; rm -rf "$1"`,
      join(KUBE_DIR, "stop.sh"),
      stateDir,
    ],
    { env, detached: true, stdio: "ignore" },
  ).unref();
  const kubectl = join(stateDir, "bin", "kubectl");
  return {
    kill(component) {
      try {
        const pid = Number(readFileSync(join(stateDir, "run", `${component}.pid`), "utf8").trim());
        process.kill(pid, "SIGKILL");
        return true;
      } catch {
        return false;
      }
    },
    startStopped() {
      // One start.sh at a time: two at once could both start a component that is not running.
      const run = starting.then(async () => {
        const again = await startScript();
        if (again.status !== 0) throw new Error(`the control plane did not start again: ${again.output.slice(-3_000)}`);
      });
      starting = run.catch(() => {});
      return run;
    },
    close: () => void stop(),
    url: `https://127.0.0.1:${ports[0]}`,
    kubeconfigPath,
    kubeconfigText: readFileSync(kubeconfigPath, "utf8"),
    stateDir,
    kubectl: (args, input) =>
      new Promise((done) => {
        const child = spawn(kubectl, ["--kubeconfig", kubeconfigPath, ...args], { stdio: ["pipe", "pipe", "pipe"] });
        let output = "";
        child.stdout.on("data", (b: Buffer) => (output += b.toString()));
        child.stderr.on("data", (b: Buffer) => (output += b.toString()));
        child.on("close", (status) => done({ status: status ?? -1, output }));
        child.stdin.end(input ?? "");
      }),
  };
}

// --- internal ---

const BINARIES = ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl"];

/**
 * Unpacks the binaries once per machine (`<tmp>/mon-kube-bin-<uid>`) and links them into `bin`, so each test
 * process's fresh state directory starts without unpacking 75 MB of xz again.
 */
function linkBinaries(bin: string): void {
  const cache = join(tmpdir(), `mon-kube-bin-${process.getuid?.() ?? 0}`);
  mkdirSync(cache, { recursive: true });
  mkdirSync(bin, { recursive: true });
  for (const name of BINARIES) {
    const packed = join(KUBE_DIR, "bin", `${name}.xz`);
    const unpacked = join(cache, name);
    if (!existsSync(unpacked) || statSync(packed).mtimeMs > statSync(unpacked).mtimeMs) {
      const partial = `${unpacked}.${process.pid}`;
      const r = spawnSync("bash", ["-c", 'xz -dc "$0" > "$1" && chmod 755 "$1"', packed, partial]);
      if (r.status !== 0) throw new Error(`could not unpack ${packed}: ${r.stderr}`);
      renameSync(partial, unpacked);
    }
    try {
      linkSync(unpacked, join(bin, name));
    } catch {
      copyFileSync(unpacked, join(bin, name));
    }
  }
}

async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, async () => {
      const server = createServer();
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      return server;
    }),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  return ports;
}
