import { describe, expect, test } from "bun:test";
import { createMetrics } from "../metrics.ts";
import { ALERT_RULES, metricsIn, PANELS } from "./monitoring.ts";

/** Every `mon_*` metric of this release with its label names. */
const declared = new Map(
  (createMetrics().registry.getMetricsAsArray() as unknown as { name: string; labelNames?: string[] }[]).map((m) => [
    m.name,
    new Set(m.labelNames ?? []),
  ]),
);
const expressions = [
  ...ALERT_RULES.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })),
  ...PANELS.flatMap((p) => p.targets.map((t) => ({ where: `panel ${p.title}`, expr: t.expr }))),
];

describe("alerts and dashboard on mon's own metrics (deploy/monitoring)", () => {
  test("every mon_* metric they read exists in src/metrics.ts, with every label they group or match by", () => {
    const problems: string[] = [];
    for (const { where, expr } of expressions) {
      const names = metricsIn(expr);
      for (const name of names) if (!declared.has(name)) problems.push(`${where}: ${name} is not a metric`);
      const labels = [...expr.matchAll(/by \(([^)]*)\)/g)].flatMap((m) => m[1]!.split(",").map((l) => l.trim()));
      for (const label of labels.filter((l) => l !== "le" && l !== "pod"))
        if (!names.some((n) => declared.get(n)?.has(label)))
          problems.push(`${where}: no metric has the label ${label}`);
    }
    expect(problems).toEqual([]);
  });

  test("the check would catch a renamed metric", () => {
    expect(metricsIn("sum(increase(mon_delivery_droped_total[1h]))").every((n) => declared.has(n))).toBe(false);
  });

  test("the alerts the issue names are there: drops, dead letters, outbox age, not ready, coverage loss", () => {
    const read = ALERT_RULES.flatMap((r) => metricsIn(r.expr));
    expect(read).toEqual(
      expect.arrayContaining([
        "mon_delivery_dropped_total",
        "mon_delivery_dead_letters_total",
        "mon_delivery_queue_oldest_age_seconds",
        "mon_ready",
        "mon_coverage_uncovered_kinds",
      ]),
    );
  });
});
