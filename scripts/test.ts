/**
 * `npm test`: the whole suite in three `bun test` processes side by side, so what waits on real time does not
 * wait behind what keeps a core busy (bun runs the files of one process one after the other, in the order given):
 * - **cluster**: the tests on the shared real control plane and the real node (src/testing/preload.ts starts them
 *   as the run begins), the real control plane's stories last — their nodes must first be past mon's young-node
 *   grace (10 minutes), which the other files of this run use;
 * - **faults**: the control plane's fault stories (src/e2e/faults.test.ts), on a control plane of their own;
 * - **rest**: every other file (unit tests, the daemon against the simulator), none of which needs either.
 * The cluster run's output is shown as it comes; the others' is held (dist/test-<run>.log) and shown after it.
 * Each run writes a JUnit report CI summarises (dist/test-report*.xml, scripts/test-report.ts); the last lines
 * are the totals of all three, as bun prints its own. Arguments (`npm test -- src/x.test.ts -t name`) are passed
 * to one `bun test` instead. Exits 1 when any run failed.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from "node:fs";
import { readReport, totalsOf } from "../src/testing/test-report.ts";

/** The files on the shared real control plane and the real node, in the cluster run; the stories' file last. */
const CLUSTER = [
  // First: what it leaves in the shared cluster is gone long before the stories' daemons start.
  "src/e2e/real-protobuf.test.ts",
  "src/e2e/deno.test.ts",
  "src/e2e/deploy.test.ts",
  "src/e2e/helm.test.ts",
  "src/e2e/in-cluster-ha.test.ts",
  "src/e2e/in-cluster.test.ts",
  "src/e2e/install.test.ts",
  "src/e2e/real-control-plane.test.ts",
];

/** The files of the faults run. */
const FAULTS = ["src/e2e/faults.test.ts"];

interface Run {
  readonly name: string;
  readonly files: readonly string[];
  /** Whether this run's preload starts the shared control plane and the real node. */
  readonly cluster: boolean;
  /** Held output (the runs shown after the first). */
  readonly held?: number;
}

const report = (run: string) => (run === "cluster" ? "dist/test-report.xml" : `dist/test-report-${run}.xml`);

const bunTest = (run: Run) =>
  new Promise<number>((done) => {
    const child = spawn(
      process.execPath,
      ["test", "--timeout", "30000", "--reporter=junit", `--reporter-outfile=${report(run.name)}`, ...run.files],
      {
        stdio: run.held === undefined ? "inherit" : ["ignore", run.held, run.held],
        env: { ...process.env, MON_REAL_KUBE_EARLY: run.cluster ? "1" : "0" },
      },
    );
    child.on("close", (status) => done(status ?? 1));
  });

/** bun's totals of a run, from its JUnit report (a run that wrote none counts as one failure). */
function totals(file: string): { pass: number; fail: number } {
  return existsSync(file) ? totalsOf(readReport(readFileSync(file, "utf8"))) : { pass: 0, fail: 1 };
}

mkdirSync("dist", { recursive: true });
for (const name of ["cluster", "faults", "rest"]) rmSync(report(name), { force: true });
const args = process.argv.slice(2);
// Only what is named: a real control plane is started when a test first asks for one, not ahead.
if (args.length > 0) process.exit(await bunTest({ name: "cluster", files: args, cluster: false }));

const all = (readdirSync("src", { recursive: true }) as string[])
  .filter((f) => f.endsWith(".test.ts"))
  .map((f) => `src/${f.split("\\").join("/")}`)
  .sort();
const path = (files: readonly string[]) => files.map((f) => `./${f}`);
const logs = { faults: "dist/test-faults.log", rest: "dist/test-rest.log" };
const held = { faults: openSync(logs.faults, "w"), rest: openSync(logs.rest, "w") };
const statuses = await Promise.all([
  bunTest({ name: "cluster", files: path(CLUSTER), cluster: true }),
  bunTest({ name: "faults", files: path(FAULTS), cluster: false, held: held.faults }),
  bunTest({
    name: "rest",
    files: path(all.filter((f) => !CLUSTER.includes(f) && !FAULTS.includes(f))),
    cluster: false,
    held: held.rest,
  }),
]);
closeSync(held.faults);
closeSync(held.rest);
// Written synchronously: a pipe's pending writes are lost at process.exit, and CI reads the totals from the end.
const say = (text: string) => {
  const bytes = new TextEncoder().encode(text);
  const still = new Int32Array(new SharedArrayBuffer(4));
  for (let at = 0; at < bytes.length; ) {
    try {
      at += writeSync(2, bytes, at);
    } catch (error) {
      // A non-blocking pipe that is full: wait for the reader (tee) to take some.
      if ((error as { code?: string }).code !== "EAGAIN") throw error;
      Atomics.wait(still, 0, 0, 10);
    }
  }
};
for (const [name, log] of Object.entries(logs))
  say(`\n=== the ${name} run (held while the cluster run ran):\n${readFileSync(log, "utf8")}\n`);
const sum = ["cluster", "faults", "rest"].map((name) => totals(report(name)));
const pass = sum.reduce((n, t) => n + t.pass, 0);
const fail = sum.reduce((n, t) => n + t.fail, 0);
say(`\nall three runs:\n ${pass} pass\n ${fail} fail\n`);
process.exit(statuses.some((s) => s !== 0) ? 1 : 0);
