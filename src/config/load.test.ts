import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "./errors.ts";
import { loadConfig, parseConfig } from "./load.ts";

const env = { CLUSTER: "prod-eu1", EMPTY: "" };

function fails(text: string): ConfigError {
  try {
    parseConfig(text, "/etc/mon/config.yaml", env);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error("expected a ConfigError");
}

describe("configuration (spec 2.1, 7.2)", () => {
  test("no CONFIG_FILE: the built-in defaults run", () => {
    const { config, warnings, file } = loadConfig({ env: {} });
    expect(file).toBeUndefined();
    expect(warnings).toEqual([]);
    expect(config).toEqual({ resyncSeconds: 300, app: { clusterName: "", logFormatter: "text", disableStartupMessage: false, communityProvider: "" }, healthCheck: { enabled: true, port: 8060 }, alert: {} });
    expect(Object.isFrozen(config.app)).toBe(true);
  });

  test("CONFIG_FILE set to a missing file refuses startup and names the path", () => {
    expect(() => loadConfig({ env: { CONFIG_FILE: "/nonexistent/config.yaml" } })).toThrow("CONFIG_FILE: configuration file /nonexistent/config.yaml does not exist");
  });

  test("a file is read from CONFIG_FILE", () => {
    const dir = mkdtempSync(join(tmpdir(), "mon-config-"));
    writeFileSync(join(dir, "config.yaml"), "app:\n  clusterName: from-file\n");
    expect(loadConfig({ env: { CONFIG_FILE: join(dir, "config.yaml") } }).config.app.clusterName).toBe("from-file");
  });

  test("${VAR} is expanded in every string; $${X} is a literal; an unset variable names key and line", () => {
    const { config } = parseConfig("app:\n  clusterName: ${CLUSTER}-$${NOT_EXPANDED}${EMPTY}\n", "c.yaml", env);
    expect(config.app.clusterName).toBe("prod-eu1-${NOT_EXPANDED}");
    expect(fails("app:\n  clusterName: ${MISSING}\n").message).toBe("config.yaml:2: app.clusterName: references ${MISSING}, which is not set");
  });

  test("unknown keys warn once each with file line, full path and a suggestion; removed keys say why", () => {
    const { warnings } = parseConfig("resyncSecond: 60\napp:\n  clusterNmae: x\nalert:\n  line: {}\nactiveProbeMonitor:\n  recoveryThreshold: 2\n", "config.yaml", env);
    expect(warnings.map((w) => `${w.file}:${w.line}: ${w.message}`)).toEqual([
      "config.yaml:7: activeProbeMonitor.recoveryThreshold is removed: a probe resolves on its first success",
      "config.yaml:5: alert.line is removed: the LINE Notify provider no longer exists; the key is ignored",
      "config.yaml:1: unknown key resyncSecond (did you mean resyncSeconds?)",
      "config.yaml:3: unknown key app.clusterNmae (did you mean clusterName?)",
      "config.yaml:6: unknown key activeProbeMonitor",
    ]);
  });

  const startupFailures: [string, string][] = [
    ["app:\n  logFormatter: xml\n", "config.yaml:2: app.logFormatter: must be text or json"],
    ["resyncSeconds: 10\n", "config.yaml:1: resyncSeconds: must be 0 (off) or at least 30"],
    ["healthCheck:\n  port: http\n", "config.yaml:2: healthCheck.port: Expected number but received \"http\""],
    ["app: [1, 2\n", "config.yaml:2: Flow sequence in block collection must be sufficiently indented and end with a ]"],
    ["- a\n- b\n", "config.yaml:1: the configuration must be a YAML mapping"],
  ];
  for (const [text, message] of startupFailures) {
    test(`refuses startup: ${message}`, () => expect(fails(text).message).toStartWith(message));
  }

  test("resyncSeconds 0 turns relisting off", () => {
    expect(parseConfig("resyncSeconds: 0\n", "c.yaml", env).config.resyncSeconds).toBe(0);
  });
});
