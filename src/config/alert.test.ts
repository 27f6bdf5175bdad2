import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONFIG_DOMAIN } from "../config-domain.ts";
import { checkAlert, inlineCredential } from "./alert.ts";
import type { ConfigProblem } from "./errors.ts";

const dir = mkdtempSync(join(tmpdir(), "mon-creds-"));
writeFileSync(join(dir, "hook"), "https://hooks.slack.com/services/T/B/secret\n");
const hook = `\${file:${join(dir, "hook")}}`;

function check(alert: unknown) {
  const problems: Omit<ConfigProblem, "file" | "line">[] = [];
  const providers = checkAlert(alert, CONFIG_DOMAIN.providers, (level, rule, key, message) =>
    problems.push({ level, rule, key, message }),
  );
  return { providers, problems, messages: problems.map((p) => `${p.level}: ${p.message}`) };
}

describe("alert.<provider> in the configuration pipeline (spec 2.1, 2.4)", () => {
  test("credentials are read from ${file:} references; common keys are split from the provider's own", () => {
    const { providers, problems } = check({
      slack: { webhook: hook, hourlyBudget: 10, retry: { maxAttempts: 5, delay: "30s" } },
    });
    expect(problems).toEqual([]);
    expect(providers[0]!.options.webhook).toBe("https://hooks.slack.com/services/T/B/secret");
    expect(providers[0]!.common).toEqual({ hourlyBudget: 10, retry: { maxAttempts: 5, delay: "30s" } });
  });

  test("the common settings' defaults come from the schema: hourlyBudget is 60 unless set", () => {
    expect(check({ slack: { webhook: hook } }).providers[0]!.common).toEqual({ hourlyBudget: 60 });
  });

  test("an inline credential is an error naming the key, never the value", () => {
    expect(check({ slack: { webhook: "https://hooks.slack.com/services/T/B/secret" } }).messages).toEqual([
      "error: alert.slack.webhook: credentials must be given as ${file:/absolute/path} (a file mounted from a Secret)",
    ]);
  });

  test("an unreadable credential file names the path", () => {
    expect(check({ slack: { webhook: "${file:/nonexistent/hook}" } }).messages).toEqual([
      "error: alert.slack.webhook: cannot read /nonexistent/hook (ENOENT)",
    ]);
  });

  test("an unknown provider is a warning with a suggestion and is left out (spec 2.1)", () => {
    const { providers, messages, problems } = check({ slakc: { webhook: hook }, slack: { webhook: hook } });
    expect(messages).toEqual(["warning: unknown provider alert.slakc (did you mean slack?); it is ignored"]);
    expect(problems[0]!.rule).toBe("provider_unknown");
    expect(providers.map((p) => p.name)).toEqual(["slack"]);
  });

  test("unknown keys in the provider's own options, in retry and in route items warn with a suggestion", () => {
    const { messages, providers } = check({
      slack: {
        webhook: hook,
        webhok: "x",
        retry: { maxAtempts: 3 },
        routes: [{ namespace: ["shop"], reasons: ["CrashLoopBackOff"] }],
      },
    });
    expect(messages).toEqual([
      "warning: unknown key alert.slack.webhok (did you mean webhook?)",
      "warning: unknown key alert.slack.retry.maxAtempts (did you mean maxAttempts?)",
      "warning: unknown key alert.slack.routes.0.namespace (did you mean namespaces?)",
    ]);
    expect(providers[0]!.common.retry).toEqual({});
  });

  test("a route whose only field is misspelled is refused: it would match everything", () => {
    const { messages, providers } = check({ slack: { webhook: hook, routes: [{ namespace: ["shop"] }] } });
    expect(messages).toEqual([
      "warning: unknown key alert.slack.routes.0.namespace (did you mean namespaces?)",
      "error: alert.slack.routes.0: a route must set namespaces, severities, reasons or owners (an empty route would match everything)",
    ]);
    expect(providers).toEqual([]);
  });

  test("an empty name in a route is refused", () => {
    expect(check({ slack: { webhook: hook, routes: [{ namespaces: [""] }] } }).messages).toEqual([
      "error: alert.slack.routes.0.namespaces.0: must not be empty",
    ]);
  });

  test("invalid own options, invalid common options and a fallback that is not configured are all reported", () => {
    expect(
      check({ webhook: { url: "nope" }, slack: { webhook: hook, fallback: "pagerDuty", hourlyBudget: -1 } }).messages,
    ).toEqual([
      "error: alert.slack.hourlyBudget: must be 0 (unlimited) or more (got -1)",
      "error: alert.webhook.url: must be an absolute URL",
    ]);
    expect(check({ slack: { webhook: hook, fallback: "pagerDuty" } }).messages).toEqual([
      "error: alert.slack.fallback: names pagerDuty, which is not configured under alert",
    ]);
    expect(check({ slack: { webhook: hook, fallback: "slack" } }).messages).toEqual([
      "error: alert.slack.fallback: a provider cannot be its own fallback",
    ]);
  });

  test("a provider whose schema-level rule fails is reported against the provider", () => {
    expect(check({ slack: { token: hook } }).messages).toEqual(["error: alert.slack: token needs channel"]);
  });

  test("a URL written inline that carries a credential is refused like any inline credential (spec 2.4)", () => {
    expect(check({ webhook: { url: "https://user:pass@hooks.example.test/mon" } }).messages).toEqual([
      "error: alert.webhook.url: this URL carries a credential (user information before @); give the whole URL as ${file:/absolute/path} (a file mounted from a Secret)",
    ]);
    expect(check({ webhook: { url: "https://hooks.example.test/mon?token=abc" } }).messages).toEqual([
      "error: alert.webhook.url: this URL carries a credential (the query parameter token); give the whole URL as ${file:/absolute/path} (a file mounted from a Secret)",
    ]);
    expect(check({ alerta: { url: "https://ops:pw@alerta.example.test/api", apiKey: hook } }).problems[0]!.key).toBe(
      "alert.alerta.url",
    );
    // The same URL from a file is accepted; a plain receiver URL inline is too.
    writeFileSync(join(dir, "url"), "https://hooks.example.test/mon?token=abc\n");
    expect(check({ webhook: { url: `\${file:${join(dir, "url")}}` } }).problems).toEqual([]);
    expect(check({ webhook: { url: "https://hooks.example.test/mon" } }).problems).toEqual([]);
  });

  test("inlineCredential names what makes a URL a credential", () => {
    expect(inlineCredential("https://a:b@h/")).toBe("user information before @");
    expect(inlineCredential("https://h/x?sig=1&sv=2")).toBe("the query parameter sig");
    expect(inlineCredential("https://h/x?page=2")).toBeUndefined();
    expect(inlineCredential("not a url")).toBeUndefined();
  });

  test("alert that is not a mapping, or a provider that is not one, is an error", () => {
    expect(check(["slack"]).messages).toEqual(["error: alert: must be a mapping of provider names to their settings"]);
    expect(check({ slack: "https://hooks" }).messages).toEqual([
      "error: alert.slack: must be a mapping of keys to values",
    ]);
  });
});
