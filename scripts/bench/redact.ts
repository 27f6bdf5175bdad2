/**
 * Benchmark `redact` (spec 6.8, docs/performance.md "Redaction"): the cost of scrubbing text a pod wrote, per
 * call, at the start and at the end of 20,000 calls, with secretlint's profiler as this release runs it (off)
 * and as secretlint ships it (on); and mon's own redact() on evidence of three sizes. Each arm runs in a
 * process of its own. Writes scripts/bench/results/redact.json and the table in docs/performance.md.
 * Run: bun scripts/bench/redact.ts (part of npm run bench)
 */
import { secretLintProfiler } from "@secretlint/profiler";
import { scrubText } from "../../src/notify/scrub.ts";
import { redact } from "../../src/redact/redact.ts";
import { SECRET_SHAPES } from "../../src/redact/testdata/corpus.ts";
import { publish } from "./report.ts";
import { runArms } from "./arms.ts";

const CALLS = 20_000;
const WINDOW = 2_000;

interface Arm {
  readonly arm: "off" | "on";
  readonly firstMs: number;
  readonly lastMs: number;
}

/** CPU ms per call over `n` scrubs starting at call `from`. */
async function perCall(from: number, n: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = from; i < from + n; i++) await scrubText(`exit 1: connecting to db ${i} failed, password=hunter${i}`);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / n;
}

async function runArm(arm: "off" | "on"): Promise<Arm> {
  secretLintProfiler.setEnabled(arm === "on");
  const firstMs = await perCall(0, WINDOW);
  await perCall(WINDOW, CALLS - 2 * WINDOW);
  const lastMs = await perCall(CALLS - WINDOW, WINDOW);
  return { arm, firstMs: round(firstMs), lastMs: round(lastMs) };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/**
 * redact() alone, µs per call, on a text of about `bytes` bytes holding credential shapes: each text new
 * (`fresh`), or the same texts again each round, as a pass sees its findings' evidence (the memo answers).
 */
function redactMicros(bytes: number, fresh: boolean): number {
  const texts = SECRET_SHAPES.slice(0, 40).map((s, i) => {
    let t = "";
    while (t.length < bytes) t += `line ${i}: upstream failed with ${s.text} after 3 retries; `;
    return t.slice(0, bytes);
  });
  const rounds = Math.max(5, Math.round(400_000 / bytes));
  const start = process.cpuUsage();
  for (let r = 0; r < rounds; r++) for (const t of texts) redact(fresh ? `${r} ${t}` : t);
  const used = process.cpuUsage(start);
  return Math.round(((used.user + used.system) / (rounds * texts.length)) * 10) / 10;
}

const arms = await runArms(import.meta.filename, ["off", "on"] as const, runArm);
const sizes = [100, 500, 16_384].map((bytes) => ({
  bytes,
  micros: redactMicros(bytes, true),
  repeatedMicros: redactMicros(bytes, false),
}));
const table = [
  `| secretlint profiler | CPU ms per scrub, calls 1–${WINDOW} | CPU ms per scrub, last ${WINDOW} of ${CALLS} | last / first |`,
  "|---|---:|---:|---:|",
  ...arms.map(
    (a) =>
      `| ${a.arm === "off" ? "off (this release)" : "on (secretlint's default)"} | ${a.firstMs} | ${a.lastMs} | ${round(a.lastMs / a.firstMs)} |`,
  ),
  "",
  "| text redacted by redact() | CPU µs per call, a new text | CPU µs per call, a text seen before (every pass) |",
  "|---|---:|---:|",
  ...sizes.map((s) => `| ${s.bytes} bytes | ${s.micros} | ${s.repeatedMicros} |`),
].join("\n");
publish("redact", { runtime: `bun ${Bun.version}`, calls: CALLS, window: WINDOW, arms, redact: sizes }, table);
