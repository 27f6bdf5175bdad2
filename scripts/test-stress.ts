/**
 * The suite on a busy machine: one CPU-bound process per core runs beside `bun test`, three runs in a row
 * (issue: the suite must not depend on how fast the machine is). Usage: bun scripts/test-stress.ts [RUNS]
 * [-- bun test arguments]. Exits 1 when any run failed; prints each run's time and totals.
 */
import { spawn, spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";

const args = process.argv.slice(2);
const dash = args.indexOf("--");
const runs = Number(dash === 0 ? 3 : (args[0] ?? 3));
const testArgs = dash >= 0 ? args.slice(dash + 1) : [];

// Busy loops in child processes, so they compete for the cores the way other work on a CI machine does.
const loaders = Array.from({ length: availableParallelism() }, () =>
  spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }),
);
const stop = () => {
  for (const l of loaders) l.kill("SIGKILL");
};
process.on("exit", stop);
process.on("SIGINT", () => process.exit(130));

const results: { run: number; seconds: number; pass: number; fail: number; status: number }[] = [];
for (let run = 1; run <= runs; run++) {
  const started = performance.now();
  const child = spawnSync(process.execPath, ["test", "--timeout", "30000", ...testArgs], {
    stdio: ["ignore", "inherit", "pipe"],
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  process.stderr.write(child.stderr);
  const count = (word: string) =>
    Number(
      /^\s*(\d+) (?:pass|fail)$/m.exec(
        child.stderr
          .split("\n")
          .filter((l) => l.trim().endsWith(word))
          .pop() ?? "",
      )?.[1] ?? 0,
    );
  results.push({
    run,
    seconds: Math.round((performance.now() - started) / 1000),
    pass: count(" pass"),
    fail: count(" fail"),
    status: child.status ?? 1,
  });
}
stop();
console.log(`\nloaded runs (${loaders.length} busy loop(s) beside the suite):`);
for (const r of results)
  console.log(
    `  run ${r.run}: ${r.pass} pass, ${r.fail} fail, ${r.seconds} s${r.status === 0 ? "" : ` (exit ${r.status})`}`,
  );
process.exit(results.every((r) => r.status === 0 && r.fail === 0) ? 0 : 1);
