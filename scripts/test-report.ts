/**
 * Prints the test report of the last `npm test` (src/testing/test-report.ts): CI prints it last, before its
 * totals, where a shortened log still shows it. Usage: bun scripts/test-report.ts [FILE], FILE defaulting to
 * dist/test-report.xml. Exits 0 whatever the report holds; 1 only when the file cannot be read.
 */
import { readFileSync } from "node:fs";
import { formatReport, readReport } from "../src/testing/test-report.ts";

const file = process.argv[2] ?? "dist/test-report.xml";
let xml: string;
try {
  xml = readFileSync(file, "utf8");
} catch (error) {
  console.error(`test report: cannot read ${file}: ${(error as Error).message}`);
  process.exit(1);
}
console.log(formatReport(readReport(xml)));
