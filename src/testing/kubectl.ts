import { spawn, spawnSync } from "node:child_process";

/** `kubectl` when this machine has it (the project's machines do), else undefined. */
export const KUBECTL: string | undefined =
  spawnSync("kubectl", ["version", "--client"], { encoding: "utf8" }).status === 0 ? "kubectl" : undefined;

/**
 * Runs the real kubectl against `kubeconfig` without blocking (the simulator answers from this same process);
 * resolves with its exit status and its stdout and stderr together. 20 s at most.
 */
export function runKubectl(kubeconfig: string, ...args: string[]): Promise<{ status: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(KUBECTL ?? "kubectl", ["--kubeconfig", kubeconfig, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 20_000,
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    child.on("close", (status) => resolve({ status: status ?? -1, out }));
  });
}
