import { test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REAL_NODE_TAINT } from "../sim/standin/story-cluster.ts";
import { findBinary } from "./real-components.ts";
import { KUBE_DIR, type RealKube, realKube, realKubeMissing } from "./real-kube.ts";

/**
 * A real node for the tests that prove mon on real pods (issue 50): kubelet v1.32.13, containerd, runc and the
 * CNI bridge of the node scripts beside the control plane (`KUBE_DIR/node`), joined to this test process's real control plane (real-kube.ts) as
 * `localhost`, so that `pods/log` and `exec` reach its loopback-only kubelet through the API server. Started once
 * per test process (`setup.sh`, about 10 s; the Debian packages are installed by scripts/real-components.sh, as
 * `.ci/run` does), stopped with `teardown.sh` when the process ends (a watchdog stops it should the process die).
 * Its kubelet and health ports are free ones, its bridge and pod subnet its own, so a node started by hand from
 * those scripts on their default subnet is not disturbed; but a machine runs one kubelet at a time (both would
 * manage the same pod cgroups), so a kubelet already running here is reported as the reason the test cannot run.
 * `.ci/run` sets `MON_REAL_COMPONENTS=required`: there a missing node fails the test; elsewhere the test is
 * skipped with one line saying why.
 */

/** The folder of the node's scripts. */
export const NODE_DIR = join(KUBE_DIR, "node");

/** The node's name: `localhost`, so that the API server reaches its kubelet on loopback (logs, exec). */
export const REAL_NODE = "localhost";

/** The node's pod subnet (its bridge is `<prefix>.1`): apart from a node started by hand (10.244.77.0/24). */
export const REAL_NODE_SUBNET = "10.244.91";

/** The images every real node has: busybox (a shell and its applets) and the sandbox. */
export const BUSYBOX = "localhost/busybox:1";

/**
 * Why the real node cannot run here, or undefined when it can. Judged once per process, before this process
 * starts its own node: the kubelet it then runs is not "another kubelet" to the test files loaded after it.
 */
export function realNodeMissing(): string | undefined {
  judged ??= { missing: judgeMissing() };
  return judged.missing;
}

let judged: { missing: string | undefined } | undefined;

function judgeMissing(): string | undefined {
  const kube = realKubeMissing();
  if (kube) return kube;
  if (!existsSync(join(NODE_DIR, "setup.sh"))) return `no real node at ${NODE_DIR} (set MON_KUBE_DIR)`;
  if (process.getuid?.() !== 0) return "the real node needs root (it runs a kubelet, containerd and runc)";
  const tools = ["containerd", "runc", "ctr", "ip"].filter((t) => !findBinary(t));
  if (!existsSync("/usr/lib/cni/bridge")) tools.push("containernetworking-plugins");
  if (!existsSync("/bin/busybox") && !existsSync("/usr/bin/busybox")) tools.push("busybox-static");
  if (tools.length)
    return `${tools.join(", ")} not installed (run scripts/real-components.sh as root: Debian's containerd, runc, containernetworking-plugins, busybox-static)`;
  const other = otherKubelet();
  if (other) return `another kubelet runs on this machine (pid ${other}): one node per machine; stop it first`;
  return undefined;
}

/**
 * `test` (`test.concurrent` with `concurrent`) when the real node can run here or CI requires it (a missing one
 * then fails the test, saying what is missing); otherwise `test.skip`, with one printed line saying what was
 * skipped and why.
 */
export function realNodeTest(what: string, options: { concurrent?: boolean } = {}): typeof test {
  const missing = realNodeMissing();
  if (!missing) return (options.concurrent ? test.concurrent : test) as typeof test;
  if (process.env.MON_REAL_COMPONENTS === "required")
    return ((name: string, _body: unknown, timeout?: number) =>
      test(
        name,
        () => {
          throw new Error(`the real node cannot run: ${missing}`);
        },
        timeout,
      )) as unknown as typeof test;
  console.log(`skipped: ${what}: ${missing}`);
  return test.skip;
}

/** A running real node, joined to the control plane of this test process. */
export interface RealNode {
  readonly kube: RealKube;
  /** `localhost`. */
  readonly name: string;
  /** Its state directory: containerd, kubelet, logs. */
  readonly stateDir: string;
  /** Epoch ms when the node was Ready the first time (its Node object's creation, about). */
  readonly registeredAt: number;
  /** The kubelet's pid now, or undefined while it is stopped. */
  kubeletPid(): number | undefined;
  /** Stops the kubelet (SIGTERM, then waits for it to exit): the node goes silent, its pods keep running. */
  stopKubelet(): Promise<void>;
  /** Starts the kubelet again (setup.sh, which leaves containerd and the images alone) and waits for Ready. */
  startKubelet(): Promise<void>;
  /** `ctr -n k8s.io` against the node's containerd. */
  ctr(args: readonly string[]): { status: number; output: string };
}

let started: Promise<RealNode> | undefined;

/**
 * The real node of this test process, started on first use once the control plane is up (about 10 s; the images
 * are built once per state directory). Throws with the setup script's output when it cannot start.
 */
export function realNode(): Promise<RealNode> {
  started ??= start();
  return started;
}

// --- internal ---

async function start(): Promise<RealNode> {
  const missing = realNodeMissing();
  if (missing) throw new Error(`the real node cannot run: ${missing}`);
  const kube = await realKube();
  const stateDir = mkdtempSync(join(tmpdir(), "mon-node-"));
  const [kubeletPort, healthzPort] = await freePorts(2);
  const env = {
    ...process.env,
    KUBE_NODE_STATE: stateDir,
    KUBE_NODE_KUBELET_PORT: String(kubeletPort),
    KUBE_NODE_HEALTHZ_PORT: String(healthzPort),
    KUBE_NODE_SUBNET_PREFIX: REAL_NODE_SUBNET,
    KUBE_NODE_BRIDGE: "monkn0",
    KUBE_NODE_TIMEOUT: "180",
  };
  const setup = () =>
    run("bash", [join(NODE_DIR, "setup.sh"), "--no-apt", "--cp-dir", kube.stateDir, "--node-name", REAL_NODE], env);
  const first = await setup();
  if (first.status !== 0) {
    teardown(stateDir, env);
    throw new Error(`the real node did not start: ${first.output.slice(-3_000)}`);
  }
  const registeredAt = Date.now();
  process.once("exit", () => teardown(stateDir, env));
  // Only pods meant for it land on it: the other tests' pods (a chart installed, a story's own nodes) stay off.
  const tainted = await kube.kubectl(["taint", "node", REAL_NODE, `${REAL_NODE_TAINT}=true:NoSchedule`, "--overwrite"]);
  if (tainted.status !== 0) throw new Error(`the real node could not be tainted: ${tainted.output}`);
  // Stops it should this process die without running its exit handlers.
  spawn(
    "bash",
    [
      "-c",
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 2; done; bash "$0" --state "$1" >/dev/null 2>&1`,
      join(NODE_DIR, "teardown.sh"),
      stateDir,
    ],
    { env, detached: true, stdio: "ignore" },
  ).unref();
  const pidFile = join(stateDir, "run", "kubelet.pid");
  const kubeletPid = () => {
    try {
      const pid = Number(readFileSync(pidFile, "utf8").trim());
      process.kill(pid, 0);
      return pid;
    } catch {
      return undefined;
    }
  };
  const socket = join(stateDir, "containerd", "containerd.sock");
  return {
    kube,
    name: REAL_NODE,
    stateDir,
    registeredAt,
    kubeletPid,
    async stopKubelet() {
      const pid = kubeletPid();
      if (pid === undefined) return;
      process.kill(pid, "SIGTERM");
      const deadline = Date.now() + 30_000;
      while (kubeletPid() !== undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (kubeletPid() !== undefined) process.kill(pid, "SIGKILL");
    },
    async startKubelet() {
      const again = await setup();
      if (again.status !== 0)
        throw new Error(`the real node's kubelet did not start again: ${again.output.slice(-2_000)}`);
    },
    ctr(args) {
      const r = spawnSync("ctr", ["--address", socket, "--namespace", "k8s.io", ...args], { encoding: "utf8" });
      return { status: r.status ?? -1, output: `${r.stdout ?? ""}${r.stderr ?? ""}` };
    },
  };
}

/** Runs a command to its end: exit status and output (stdout then stderr). */
function run(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ status: number; output: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (b: Buffer) => (output += b.toString()));
    child.stderr.on("data", (b: Buffer) => (output += b.toString()));
    child.on("close", (status) => done({ status: status ?? -1, output }));
  });
}

function teardown(stateDir: string, env: NodeJS.ProcessEnv): void {
  spawnSync("bash", [join(NODE_DIR, "teardown.sh"), "--state", stateDir], { env, stdio: "ignore" });
}

/** The pid of a kubelet running on this machine (one per machine), if any. */
function otherKubelet(): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/exe`).endsWith("/kubelet")) return Number(entry);
    } catch {}
  }
  return undefined;
}

/** `n` TCP ports free on loopback now (a listener may take one before the caller does: use at once). */
export async function freePorts(n: number): Promise<number[]> {
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
