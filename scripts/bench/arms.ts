import { spawnSync } from "node:child_process";

/**
 * Runs each arm of a benchmark in a process of its own, so one arm's heap and module state cannot colour
 * the next: the script `file` is started with the arm's name as its argument, prints the arm's result as the
 * last line of JSON, and this returns them in order. When the script itself was started for one arm, `run`
 * measures it, prints it and ends the process instead. `env` is added to each arm's environment (a size).
 */
export async function runArms<A extends string, R>(
  file: string,
  arms: readonly A[],
  run: (arm: A) => Promise<R>,
  env: Record<string, string> = {},
): Promise<R[]> {
  const asked = process.argv[2] as A | undefined;
  if (asked !== undefined && arms.includes(asked)) {
    console.log(JSON.stringify(await run(asked)));
    process.exit(0);
  }
  return arms.map((name) => {
    const child = spawnSync(process.execPath, [file, name], {
      encoding: "utf8",
      env: { ...process.env, ...env },
    });
    if (child.status !== 0) throw new Error(`arm ${name} failed: ${child.stderr}`);
    return JSON.parse(child.stdout.trim().split("\n").pop()!) as R;
  });
}
