import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../config/errors.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { buildProviders } from "./build.ts";
import { createHttpClient } from "./http.ts";

const deps = { http: createHttpClient(), logger: createSilentLogger(), clusterName: "t", stdout: () => {} };
const where = { file: "config.yaml", lineOf: (key: string) => ({ "alert.slack.webhook": 7, "alert.slak": 5, "alert.slack.webhok": 8 })[key] };
const dir = mkdtempSync(join(tmpdir(), "mon-creds-"));
writeFileSync(join(dir, "hook"), "https://hooks.slack.com/services/T/B/secret\n");

function error(alert: Record<string, Record<string, unknown>>): ConfigError {
  try {
    buildProviders(alert, deps, where);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error("expected a ConfigError");
}

describe("buildProviders (spec 2.4, 6 item 7)", () => {
  test("credentials are read from ${file:} references; the secret never appears in the providers' options shown", () => {
    const { providers } = buildProviders({ slack: { webhook: `\${file:${join(dir, "hook")}}` } }, deps, where);
    expect(providers.map((p) => p.definition.name)).toEqual(["slack"]);
    expect(providers[0]!.options.webhook).toBe("https://hooks.slack.com/services/T/B/secret");
  });

  test("an inline credential refuses startup, naming the key and line but not the value", () => {
    const e = error({ slack: { webhook: "https://hooks.slack.com/services/T/B/secret" } });
    expect(e.message).toBe("config.yaml:7: alert.slack.webhook: credentials must be given as ${file:/absolute/path} (a file mounted from a Secret)");
    expect(e.message).not.toContain("secret\"");
  });

  test("an unreadable credential file names the path", () => {
    expect(error({ slack: { webhook: "${file:/nonexistent/hook}" } }).message).toBe("config.yaml:7: alert.slack.webhook: cannot read /nonexistent/hook (ENOENT)");
  });

  test("an unknown provider refuses startup with a suggestion; an unknown option warns with one", () => {
    expect(error({ slak: {} }).message).toBe("config.yaml:5: alert.slak: no provider named slak (did you mean slack?)");
    const { warnings } = buildProviders({ slack: { webhook: `\${file:${join(dir, "hook")}}`, webhok: "x" } }, deps, where);
    expect(warnings).toEqual([{ key: "alert.slack.webhok", message: "unknown key alert.slack.webhok (did you mean webhook?)", file: "config.yaml", line: 8 }]);
  });

  test("invalid options name the provider key", () => {
    expect(error({ webhook: { url: "nope" } }).message).toBe("config.yaml: alert.webhook.url: must be an absolute URL");
  });
});
