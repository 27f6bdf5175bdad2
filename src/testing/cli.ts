import { spawn } from "node:child_process";
import { join } from "node:path";

const MAIN = join(import.meta.dirname, "..", "main.ts");

/** What one run of the CLI printed and how it ended. */
export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the real CLI (`bun src/main.ts ...args`) as a separate process with only PATH, HOME and `env` set (and
 * `stdin` as its standard input when given),
 * so the host's variables never leak into a test. Never blocks the test's own event loop.
 */
export function runCli(
  args: readonly string[],
  options: { env?: Record<string, string>; home: string; stdin?: string },
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: options.home, ...options.env },
      stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    if (options.stdin !== undefined) child.stdin?.end(options.stdin);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** The entry file the CLI tests run, for tests that manage the child process themselves. */
export const CLI_MAIN = MAIN;
