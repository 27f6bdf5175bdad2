/**
 * What a suite's run spent its time on and why its failures failed, from the JUnit report `npm test` writes
 * (dist/test-report.xml): the slowest files and tests, then each failure's message (its first lines).
 */
import { XMLParser } from "fast-xml-parser";

/** A test case of the report: its file, name, seconds, failure text if it failed, and whether it was skipped. */
export interface ReportedTest {
  file: string;
  name: string;
  seconds: number;
  failure?: string;
  skipped?: true;
}

/** A file of the report: its name and seconds (the sum bun reports for it). */
export interface ReportedFile {
  file: string;
  seconds: number;
}

type XmlNode = Record<string, unknown>;
const list = (v: unknown): XmlNode[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]) as XmlNode[];

/** Reads bun's JUnit XML into files and tests (nested testsuites, as describe blocks make, flattened). */
export function readReport(xml: string): { files: ReportedFile[]; tests: ReportedTest[] } {
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "", htmlEntities: true }).parse(
    xml,
  ) as XmlNode;
  const files: ReportedFile[] = [];
  const tests: ReportedTest[] = [];
  const walk = (suite: XmlNode, file: string, path: string[]) => {
    for (const c of list(suite.testcase)) {
      const failure = list(c.failure)[0];
      const text = failure === undefined ? undefined : String(failure["#text"] ?? failure.message ?? "");
      tests.push({
        file,
        name: [...path, String(c.name)].join(" > "),
        seconds: Number(c.time ?? 0),
        ...(text === undefined ? {} : { failure: text }),
        ...(c.skipped === undefined ? {} : { skipped: true as const }),
      });
    }
    for (const s of list(suite.testsuite)) walk(s, file, [...path, String(s.name)]);
  };
  for (const top of list((doc.testsuites as XmlNode | undefined)?.testsuite)) {
    const file = String(top.file ?? top.name);
    files.push({ file, seconds: Number(top.time ?? 0) });
    walk(top, file, []);
  }
  return { files, tests };
}

/** bun's totals of a report: the tests that passed (neither failed nor skipped) and those that failed. */
export function totalsOf(report: { tests: readonly ReportedTest[] }): { pass: number; fail: number } {
  const fail = report.tests.filter((t) => t.failure !== undefined).length;
  return { pass: report.tests.filter((t) => t.failure === undefined && !t.skipped).length, fail };
}

/** The report as text: the `top` slowest files and tests, then every failure's first `lines` lines. */
export function formatReport(report: { files: ReportedFile[]; tests: ReportedTest[] }, top = 12, lines = 40): string {
  const s = (n: number) => `${n.toFixed(1).padStart(7)} s`;
  const total = report.files.reduce((a, f) => a + f.seconds, 0);
  const out = [`test report: ${report.tests.length} tests in ${report.files.length} files, ${total.toFixed(0)} s`];
  out.push("slowest files:");
  for (const f of [...report.files].sort((a, b) => b.seconds - a.seconds).slice(0, top)) {
    out.push(`${s(f.seconds)}  ${f.file}`);
  }
  out.push("slowest tests:");
  for (const t of [...report.tests].sort((a, b) => b.seconds - a.seconds).slice(0, top)) {
    out.push(`${s(t.seconds)}  ${t.file}: ${t.name.slice(0, 140)}`);
  }
  for (const t of report.tests.filter((t) => t.failure !== undefined)) {
    const text = (t.failure ?? "").split("\n");
    out.push(`failed: ${t.file}: ${t.name} (${t.seconds.toFixed(1)} s)`);
    out.push(...text.slice(0, lines).map((l) => `  ${l}`));
    if (text.length > lines) out.push(`  … ${text.length - lines} more lines`);
  }
  return out.join("\n");
}
