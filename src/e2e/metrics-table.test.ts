import { afterAll, describe, expect, test } from "bun:test";
import { startTestCluster, type TestCluster } from "../testing/cluster.ts";
import { SPEC_METRICS } from "../testing/spec-metrics.ts";

/**
 * Every metric of spec 4.2's table (src/testdata/spec-4.2-metrics.tsv, transcribed from the spec) is exported by
 * a running daemon with the spec's type, and every label the spec names is there.
 */
let cluster: TestCluster | undefined;
afterAll(async () => {
  await cluster?.stop();
});

const table = SPEC_METRICS;

describe("spec 4.2: the metrics table", () => {
  test("a running daemon exports every metric of the table with its type and labels", async () => {
    cluster = await startTestCluster({ webhook: { url: "https://hooks.example.test/mon" } });
    const text = await cluster.daemon.metrics.registry.metrics();
    const types = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
    expect(table.length).toBeGreaterThan(50);
    const wrong = table.flatMap((m) => {
      const type = types.get(m.name);
      if (!type) return [`${m.name}: not exported`];
      if (type !== m.type) return [`${m.name}: ${type}, the spec says ${m.type}`];
      const labelled = new RegExp(`^${m.name}(_bucket|_sum|_count)?\\{[^}]*\\b${m.label}="`, "m");
      if (m.label && !labelled.test(text)) return [`${m.name}: no label ${m.label}`];
      return [];
    });
    expect(wrong).toEqual([]);
  }, 60_000);
});
