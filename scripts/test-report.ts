/**
 * Prints the test report of the last `npm test` (src/testing/test-report.ts): CI prints it last, before its
 * totals, where a shortened log still shows it. Usage: bun scripts/test-report.ts [FILE...], the reports of one
 * `npm test` (scripts/test.ts runs two `bun test`), read as one; FILE defaults to dist/test-report.xml. Exits 0
 * whatever the reports hold; 1 only when a file cannot be read.
 */
import { readFileSync } from "node:fs";
import { formatReport, readReport } from "../src/testing/test-report.ts";

const files = process.argv.length > 2 ? process.argv.slice(2) : ["dist/test-report.xml"];
const reports: ReturnType<typeof readReport>[] = [];
for (const file of files) {
  try {
    reports.push(readReport(readFileSync(file, "utf8")));
  } catch (error) {
    console.error(`test report: cannot read ${file}: ${(error as Error).message}`);
    process.exit(1);
  }
}
console.log(formatReport({ files: reports.flatMap((r) => r.files), tests: reports.flatMap((r) => r.tests) }));
