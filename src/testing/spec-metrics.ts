import { readFileSync } from "node:fs";
import { join } from "node:path";

/** One row of spec 4.2's metrics table: the metric's name, its type, and the first label the spec names. */
export interface SpecMetric {
  readonly name: string;
  readonly type: string;
  readonly label?: string;
}

/** Spec 4.2's metrics table, as transcribed in src/testdata/spec-4.2-metrics.tsv (name, type, labels). */
export const SPEC_METRICS: readonly SpecMetric[] = readFileSync(
  join(import.meta.dirname, "..", "testdata", "spec-4.2-metrics.tsv"),
  "utf8",
)
  .split("\n")
  .filter((l) => l && !l.startsWith("#"))
  .map((l) => {
    const [name = "", type = "", labels = ""] = l.split("\t");
    const label = labels === "none" || labels === "" ? undefined : labels.split(/[ =]/)[0];
    return { name, type, ...(label ? { label } : {}) };
  });
