import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOutboundClient } from "../outbound/client.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { buildProviders } from "./build.ts";

const deps = { http: createOutboundClient(), logger: createSilentLogger(), clusterName: "t", stdout: () => {} };
const lines: Record<string, number> = {
  "alert.slack": 6,
  "alert.slack.webhook": 7,
  "alert.slak": 5,
  "alert.slack.webhok": 8,
  "alert.webhook.url": 9,
  "alert.slack.fallback": 10,
  "alert.slack.hourlyBudget": 11,
};
const site = { file: "config.yaml", lineOf: (key: string) => lines[key] };
const dir = mkdtempSync(join(tmpdir(), "mon-creds-"));
writeFileSync(join(dir, "hook"), "https://hooks.slack.com/services/T/B/secret\n");
const hook = `\${file:${join(dir, "hook")}}`;

const messages = (alert: Record<string, Record<string, unknown>>) =>
  buildProviders(alert, deps, site).problems.map((p) => `${p.file}:${p.line ?? ""}: ${p.level}: ${p.message}`);

describe("buildProviders (spec 2.4, 6 item 7)", () => {
  test("credentials are read from ${file:} references; common keys are split from the provider's own", () => {
    const { providers, problems } = buildProviders(
      { slack: { webhook: hook, hourlyBudget: 10, retry: { maxAttempts: 5, delay: "30s" } } },
      deps,
      site,
    );
    expect(problems).toEqual([]);
    expect(providers[0]!.options.webhook).toBe("https://hooks.slack.com/services/T/B/secret");
    expect(providers[0]!.common).toEqual({ hourlyBudget: 10, retry: { maxAttempts: 5, delay: "30s" } });
  });

  test("an inline credential is an error naming key and line, never the value", () => {
    const [line] = messages({ slack: { webhook: "https://hooks.slack.com/services/T/B/secret" } });
    expect(line).toBe(
      "config.yaml:7: error: alert.slack.webhook: credentials must be given as ${file:/absolute/path} (a file mounted from a Secret)",
    );
  });

  test("an unreadable credential file names the path", () => {
    expect(messages({ slack: { webhook: "${file:/nonexistent/hook}" } })).toEqual([
      "config.yaml:7: error: alert.slack.webhook: cannot read /nonexistent/hook (ENOENT)",
    ]);
  });

  test("an unknown provider is an error with a suggestion; an unknown option is a warning with one", () => {
    expect(messages({ slak: {} })).toEqual([
      "config.yaml:5: error: alert.slak: no provider named slak (did you mean slack?)",
    ]);
    expect(messages({ slack: { webhook: hook, webhok: "x" } })).toEqual([
      "config.yaml:8: warning: unknown key alert.slack.webhok (did you mean webhook?)",
    ]);
  });

  test("invalid own options, invalid common options and a fallback that is not configured are all reported", () => {
    expect(
      messages({ webhook: { url: "nope" }, slack: { webhook: hook, fallback: "pagerDuty", hourlyBudget: -1 } }),
    ).toEqual([
      "config.yaml:11: error: alert.slack.hourlyBudget: must be 0 (unlimited) or more (got -1)",
      "config.yaml:9: error: alert.webhook.url: must be an absolute URL",
    ]);
    expect(messages({ slack: { webhook: hook, fallback: "pagerDuty" } })).toEqual([
      "config.yaml:10: error: alert.slack.fallback: names pagerDuty, which is not configured under alert",
    ]);
    expect(messages({ slack: { webhook: hook, fallback: "slack" } })).toEqual([
      "config.yaml:10: error: alert.slack.fallback: a provider cannot be its own fallback",
    ]);
  });

  test("a provider whose schema-level rule fails is reported against the provider", () => {
    expect(messages({ slack: { token: `\${file:${join(dir, "hook")}}` } })).toEqual([
      "config.yaml:6: error: alert.slack: token needs channel",
    ]);
  });
});
