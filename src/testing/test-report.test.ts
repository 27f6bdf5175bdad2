import { describe, expect, test } from "bun:test";
import { formatReport, readReport, totalsOf } from "./test-report.ts";

// bun test's JUnit report, as bun 1.4 writes it: a file's describe blocks are nested testsuites.
const XML = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="bun test" tests="3" assertions="2" failures="1" skipped="0" time="95.1">
  <testsuite name="src/e2e/slow.test.ts" file="src/e2e/slow.test.ts" tests="1" time="90.5">
    <testsuite name="outage" file="src/e2e/slow.test.ts" line="2" tests="1" time="0">
      <testcase name="resolves" classname="outage" time="90.25" file="src/e2e/slow.test.ts" line="3">
        <failure type="Error" message="timed out">Error: timed out waiting for the outage resolved&#10;[mon-a] standing by&#10;      at slow.test.ts:3:86&#10;</failure>
      </testcase>
    </testsuite>
  </testsuite>
  <testsuite name="src/core/fast.test.ts" file="src/core/fast.test.ts" tests="2" time="4.6">
    <testcase name="a &gt; b" classname="" time="4.5" file="src/core/fast.test.ts" line="2" />
    <testcase name="c" classname="" time="0.1" file="src/core/fast.test.ts" line="3" />
    <testcase name="d" classname="" time="0" file="src/core/fast.test.ts" line="4">
      <skipped />
    </testcase>
  </testsuite>
</testsuites>`;

describe("the test report CI prints last", () => {
  test("files and tests with their seconds, slowest first; a failure's message whole, by its describe path", () => {
    const report = readReport(XML);
    expect(report.files).toEqual([
      { file: "src/e2e/slow.test.ts", seconds: 90.5 },
      { file: "src/core/fast.test.ts", seconds: 4.6 },
    ]);
    expect(report.tests.map((t) => `${t.name} ${t.seconds}`)).toEqual([
      "outage > resolves 90.25",
      "a > b 4.5",
      "c 0.1",
      "d 0",
    ]);
    // The totals bun prints: a skipped test is neither passed nor failed.
    expect(totalsOf(report)).toEqual({ pass: 2, fail: 1 });
    const text = formatReport(report, 2);
    expect(text).toContain("test report: 4 tests in 2 files, 95 s");
    expect(text.split("\n").slice(2, 4)).toEqual([
      "   90.5 s  src/e2e/slow.test.ts",
      "    4.6 s  src/core/fast.test.ts",
    ]);
    expect(text).toContain("failed: src/e2e/slow.test.ts: outage > resolves (90.3 s)");
    expect(text).toContain("  Error: timed out waiting for the outage resolved\n  [mon-a] standing by");
    expect(text).not.toContain("failed: src/core");
  });
});
