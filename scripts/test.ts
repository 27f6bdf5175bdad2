/**
 * `npm test`: the whole suite, in the order and the processes that spend the least wall time. bun runs the
 * files of one `bun test` one after the other, in the order given:
 * - the real control plane's stories first wait until their nodes are past mon's young-node grace (10 minutes
 *   from the suite's start, src/testing/preload.ts), so their file runs last, when the rest has used that wait;
 * - the control plane's fault stories (src/e2e/faults.test.ts) bring a control plane of their own and wait on
 *   real time for most of an hour, so they run in a second `bun test` beside the first, their output held and
 *   printed after the first's.
 * Each writes a JUnit report CI summarises (dist/test-report*.xml, scripts/test-report.ts); the last lines are
 * the totals of both, as bun prints its own. Arguments (`npm test -- src/x.test.ts -t name`) are passed to one
 * `bun test` instead of the file lists. Exits 1 when either run failed.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";

/** The files that first wait for the young-node grace, in the order they run, after every other. */
const LAST = ["src/e2e/real-control-plane.test.ts"];
/** The files run in a `bun test` of their own, beside the rest. */
const BESIDE = ["src/e2e/faults.test.ts"];

const bunTest = (files: readonly string[], report: string, env: Record<string, string>, out?: number) =>
  new Promise<number>((done) => {
    const child = spawn(
      process.execPath,
      ["test", "--timeout", "30000", "--reporter=junit", `--reporter-outfile=${report}`, ...files],
      { stdio: out === undefined ? "inherit" : ["ignore", out, out], env: { ...process.env, ...env } },
    );
    child.on("close", (status) => done(status ?? 1));
  });

/** bun's totals of a run, from its JUnit report (a run that wrote none counts as one failure). */
function totals(report: string): { pass: number; fail: number } {
  if (!existsSync(report)) return { pass: 0, fail: 1 };
  const root = /<testsuites\b[^>]*>/.exec(readFileSync(report, "utf8"))?.[0] ?? "";
  const n = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(root)?.[1] ?? 0);
  return { pass: n("tests") - n("failures") - n("skipped"), fail: n("failures") };
}

mkdirSync("dist", { recursive: true });
for (const old of ["dist/test-report.xml", "dist/test-report-beside.xml"]) rmSync(old, { force: true });
const args = process.argv.slice(2);
if (args.length > 0) process.exit(await bunTest(args, "dist/test-report.xml", { MON_REAL_KUBE_EARLY: "1" }));

const all = (readdirSync("src", { recursive: true }) as string[])
  .filter((f) => f.endsWith(".test.ts"))
  .map((f) => `src/${f.split("\\").join("/")}`)
  .sort();
const first = all.filter((f) => !LAST.includes(f) && !BESIDE.includes(f));
const held = openSync("dist/test-beside.log", "w");
const beside = bunTest(
  BESIDE.map((f) => `./${f}`),
  "dist/test-report-beside.xml",
  // Its own control plane, not the shared one the preload starts.
  { MON_REAL_KUBE_EARLY: "0" },
  held,
);
const main = await bunTest(
  [...first, ...LAST].map((f) => `./${f}`),
  "dist/test-report.xml",
  { MON_REAL_KUBE_EARLY: "1" },
);
const besideStatus = await beside;
closeSync(held);
process.stderr.write(
  `\n${BESIDE.join(", ")} (run beside the rest):\n${readFileSync("dist/test-beside.log", "utf8")}\n`,
);
const a = totals("dist/test-report.xml");
const b = totals("dist/test-report-beside.xml");
process.stderr.write(`\nboth runs:\n ${a.pass + b.pass} pass\n ${a.fail + b.fail} fail\n`);
process.exit(main !== 0 || besideStatus !== 0 ? 1 : 0);
