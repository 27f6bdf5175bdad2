import { spawn } from "node:child_process";
import { BINARIES } from "./real-components.ts";
import type { RealKube } from "./real-kube.ts";

/**
 * The real Helm v3.17 (scripts/kube-tools.sh) with `args`, against `kube` when given: exit status and output
 * (stdout then stderr). Throws when Helm is not installed (callers gate their tests on BINARIES.helm).
 */
export function helm(kube: RealKube | undefined, args: readonly string[]): Promise<{ status: number; output: string }> {
  if (!BINARIES.helm) throw new Error("helm is not installed (scripts/kube-tools.sh DIR, then DIR/bin on PATH)");
  return new Promise((done) => {
    const child = spawn(BINARIES.helm!, [...(kube ? ["--kubeconfig", kube.kubeconfigPath] : []), ...args]);
    let output = "";
    child.stdout.on("data", (b: Buffer) => (output += b.toString()));
    child.stderr.on("data", (b: Buffer) => (output += b.toString()));
    child.on("close", (status) => done({ status: status ?? 1, output }));
  });
}
