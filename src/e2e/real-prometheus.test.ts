import { describe, expect } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { ALERT_RULES, PANELS } from "../deploy/monitoring.ts";
import { startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { crashPod, seedShop, startTestCluster, healPod } from "../testing/cluster.ts";
import { getJson, promtool, realTest, startPrometheus } from "../testing/real-components.ts";
import { SPEC_METRICS } from "../testing/spec-metrics.ts";

/**
 * mon's metrics, alerts and dashboard against a real Prometheus and promtool (Debian's prometheus, 2.42 in CI):
 * a running daemon is scraped for a minute; the exposition passes `promtool check metrics`; Prometheus reads
 * every metric of spec 4.2 with its type; the shipped alerts load, evaluate without error and pass their unit
 * tests; every query of the Grafana dashboard parses and answers at least one series (docs/monitoring.md).
 */
const track = useCleanup();
const ROOT = join(import.meta.dirname, "..", "..");
const MONITORING = join(ROOT, "deploy", "monitoring");
const TOKEN = "diagnostics-token-for-the-test";

/** A Prometheus API v1 answer. */
interface PromAnswer<T> {
  status: "success" | "error";
  data: T;
  error?: string;
}

describe("Prometheus: mon's rules with promtool", () => {
  realTest("promtool checks and unit-tests the shipped alerts", "promtool")(
    "promtool accepts the shipped rules and their unit tests pass; every alert is tested firing and not firing",
    () => {
      const checked = promtool(["check", "rules", join(MONITORING, "rules.yaml")]);
      expect(checked).toMatchObject({ status: 0 });
      expect(checked.output).toContain(`SUCCESS: ${ALERT_RULES.length} rules found`);
      // The PrometheusRule's groups are the same rules, as the Operator hands them to Prometheus.
      const operator = parse(readFileSync(join(MONITORING, "prometheus-rule.yaml"), "utf8")) as { spec: unknown };
      const extracted = join(mkdtempSync(join(tmpdir(), "mon-promtool-")), "operator-rules.yaml");
      writeFileSync(extracted, stringify(operator.spec));
      expect(promtool(["check", "rules", extracted])).toMatchObject({ status: 0 });

      const tested = promtool(["test", "rules", join(MONITORING, "rules.test.yaml")]);
      expect(tested.output).toContain("SUCCESS");
      expect(tested.status).toBe(0);

      const tests = (
        parse(readFileSync(join(MONITORING, "rules.test.yaml"), "utf8")) as {
          tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
        }
      ).tests.flatMap((t) => t.alert_rule_test);
      const untested = ALERT_RULES.flatMap((r) => {
        const cases = tests.filter((t) => t.alertname === r.alert);
        return [
          ...(cases.some((t) => t.exp_alerts.length > 0) ? [] : [`${r.alert}: no case where it fires`]),
          ...(cases.some((t) => t.exp_alerts.length === 0) ? [] : [`${r.alert}: no case where it must not fire`]),
        ];
      });
      expect(untested).toEqual([]);
    },
    120_000,
  );
});

describe("Prometheus: a real Prometheus scrapes a running mon", () => {
  realTest("a real Prometheus scraping mon", "prometheus", "promtool")(
    "the exposition passes promtool, Prometheus reads every spec 4.2 metric with its type, the alerts evaluate, and every dashboard query answers",
    async () => {
      const hook = track(await startCaptureServer());
      const cluster = track(
        await startTestCluster(
          { webhook: { url: `${hook.url}/mon` } },
          { cluster: "prod-eu1", diagnosticsToken: TOKEN },
        ),
      );
      const { sim, clock } = cluster;
      seedShop(sim, clock.now());
      await cluster.settle();
      // An incident announced and resolved, so the counters, gauges and the decision lag have moved.
      crashPod(sim, "shop", "api-abc12-p0", 4, clock.now());
      await cluster.settle();
      await hook.waitFor(1);

      const target = new URL(cluster.daemon.healthUrl()!).host;
      const prometheus = track(await startPrometheus(target, 1, [join(MONITORING, "rules.yaml")]));
      const started = Date.now();

      // The exposition as scraped: no error and no warning from promtool.
      const exposition = await (await fetch(`${cluster.daemon.healthUrl()}/metrics`)).text();
      const linted = promtool(["check", "metrics"], exposition);
      expect(linted).toEqual({ status: 0, output: "" });

      healPod(sim, "shop", "api-abc12-p0", 5, clock.now());
      await cluster.settle();
      await hook.waitFor(2);

      // A minute of scrapes every second.
      await waitUntil(
        async () => {
          const up = await getJson<PromAnswer<{ result: { value: [number, string] }[] }>>(
            prometheus,
            `/api/v1/query?query=${encodeURIComponent('count_over_time(up{job="mon"}[2m])')}`,
          );
          return Date.now() - started >= 60_000 && Number(up.data.result[0]?.value[1] ?? 0) >= 30;
        },
        "a minute of scrapes",
        180_000,
      );
      const up = await getJson<PromAnswer<{ result: { value: [number, string] }[] }>>(
        prometheus,
        `/api/v1/query?query=${encodeURIComponent('min_over_time(up{job="mon"}[2m])')}`,
      );
      expect(up.data.result[0]?.value[1]).toBe("1");

      // Every metric of spec 4.2, with its type, as Prometheus read it.
      const metadata = (await getJson<PromAnswer<Record<string, { type: string }[]>>>(prometheus, "/api/v1/metadata"))
        .data;
      const wrong = SPEC_METRICS.flatMap(({ name, type }) => {
        const seen = metadata[name]?.[0]?.type;
        return seen === type ? [] : [`${name}: ${seen ?? "not scraped"}, the spec says ${type}`];
      });
      expect(wrong).toEqual([]);

      // The shipped alerts load and evaluate without error; against a healthy mon none fires.
      const rules = (
        await getJson<
          PromAnswer<{ groups: { rules: { name: string; health: string; lastError?: string; state: string }[] }[] }>
        >(prometheus, "/api/v1/rules")
      ).data.groups.flatMap((g) => g.rules);
      expect(rules.map((r) => r.name).sort()).toEqual(ALERT_RULES.map((r) => r.alert).sort());
      expect(rules.filter((r) => r.health !== "ok").map((r) => `${r.name}: ${r.health} ${r.lastError ?? ""}`)).toEqual(
        [],
      );
      expect(rules.filter((r) => r.state !== "inactive").map((r) => `${r.name}: ${r.state}`)).toEqual([]);

      // Every dashboard query parses and answers at least one series ($__rate_interval as Grafana sets it for a
      // 15 s scrape interval: 1m).
      const empty: string[] = [];
      for (const panel of PANELS)
        for (const { expr } of panel.targets) {
          const query = expr.replaceAll("$__rate_interval", "1m");
          const answer = await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(query)}`);
          const body = (await answer.json()) as PromAnswer<{ result: unknown[] }>;
          if (body.status !== "success") empty.push(`${panel.title}: ${query}: ${body.error}`);
          else if (body.data.result.length === 0) empty.push(`${panel.title}: ${query}: no series`);
        }
      expect(empty).toEqual([]);
    },
    240_000,
  );
});
