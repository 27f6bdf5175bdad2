import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { stringify } from "yaml";
import { createSimPki } from "../sim/pki.ts";
import { ConfigError } from "./errors.ts";
import { checkConfig, loadConfig, parseConfig } from "../testing/config.ts";

const dir = mkdtempSync(join(tmpdir(), "mon-config-"));
const env = { CLUSTER: "prod-eu1", EMPTY: "" };
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const caPath = file("ca.pem", createSimPki().caCert);
const heartbeatPath = file("heartbeat-url", "https://hc-ping.example.test/abc\n");
const proxyPath = file("proxy-url", "http://user:pa55@proxy.internal:3128\n");

/** The value at a dotted path of the loaded configuration. */
function at(config: unknown, key: string): unknown {
  return key.split(".").reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], config);
}

/** `{a: {b: value}}` for key `a.b`. */
function nest(key: string, value: unknown): Record<string, unknown> {
  return key
    .split(".")
    .reduceRight<Record<string, unknown>>(
      (inner, part, i, parts) => ({ [part]: i === parts.length - 1 ? value : inner }),
      {},
    );
}

/** The first error for a YAML document, as startup would refuse with it. */
function refusal(config: unknown, environment: Record<string, string> = env): string {
  try {
    parseConfig(stringify(config), "/etc/mon/config.yaml", environment);
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  return "(accepted)";
}

/**
 * Every key of spec 2.1: its default, a valid value (and what it loads as), an invalid value and the message
 * startup refuses with. `undefined` in `invalid` marks keys whose every value of the right type is valid.
 */
const KEYS: { key: string; default: unknown; valid: unknown; loads?: unknown; invalid?: unknown; message?: string }[] =
  [
    {
      key: "resyncSeconds",
      default: 300,
      valid: 0,
      invalid: 10,
      message: "resyncSeconds: must be 0 (off) or at least 30 (got 10)",
    },
    {
      key: "namespaces",
      default: undefined,
      valid: ["!kube-system", "!monitoring"],
      invalid: ["shop", "!kube-system"],
      message: "namespaces: cannot mix included and excluded (!) namespaces",
    },
    {
      key: "namespaceSelector",
      default: undefined,
      valid: { matchLabels: { team: "shop" } },
      invalid: { matchExpressions: [{ key: "a", operator: "Near" }] },
      message: "namespaceSelector.matchExpressions.0.operator",
    },
    {
      key: "reasons",
      default: undefined,
      valid: ["CrashLoopBackOff"],
      invalid: ["OOMKilled", "!NodeLost"],
      message: "reasons: cannot mix included and excluded (!) reasons",
    },
    {
      key: "runbooks",
      default: undefined,
      valid: { OOMKilled: "https://wiki.example.com/oom" },
      invalid: { OOMKilled: "wiki/oom" },
      message: 'runbooks.OOMKilled: must be an absolute http or https URL (got "wiki/oom")',
    },
    {
      key: "templates",
      default: undefined,
      valid: { OOMKilled: "OOM: {{ .Message }}" },
      invalid: { OOMKilled: "{{.Message" },
      message: "templates.OOMKilled: template does not parse: unclosed action at offset 0",
    },
    {
      key: "severityByReason",
      default: undefined,
      valid: { OOMKilled: "HIGH" },
      loads: { oomkilled: "high" },
      invalid: { OOMKilled: "urgent" },
      message: "severityByReason.OOMKilled: must be one of critical, high, medium, warning, normal (any letter case)",
    },
    {
      key: "severityByOwnerKind",
      default: undefined,
      valid: { StatefulSet: "Critical" },
      loads: { statefulset: "critical" },
      invalid: { Job: 3 },
      message: "severityByOwnerKind.Job: must be text (got 3)",
    },
    {
      key: "maintenance.enabled",
      default: true,
      valid: false,
      invalid: "sometimes",
      message: 'maintenance.enabled: must be true or false (got "sometimes")',
    },
    {
      key: "maintenance.annotation",
      default: "mon.io/maintenance",
      valid: "example.com/maintenance",
      invalid: "",
      message: "maintenance.annotation",
    },
    {
      key: "maintenance.untilAnnotation",
      default: "mon.io/maintenance-until",
      valid: "example.com/until",
      invalid: "",
      message: "maintenance.untilAnnotation",
    },
    {
      key: "ignoreContainerNames",
      default: undefined,
      valid: ["istio-proxy"],
      invalid: "istio-proxy",
      message: "ignoreContainerNames: must be a list",
    },
    {
      key: "ignorePodNames",
      default: undefined,
      valid: ["^debug-"],
      invalid: ["(debug"],
      message: 'ignorePodNames.0: is not a valid regular expression (got "(debug")',
    },
    {
      key: "ignoreContainerMessages",
      default: undefined,
      valid: ["probe"],
      invalid: [1],
      message: "ignoreContainerMessages.0: must be text",
    },
    {
      key: "ignoreNodeReasons",
      default: undefined,
      valid: ["KubeletNotReady"],
      invalid: {},
      message: "ignoreNodeReasons: must be a list",
    },
    {
      key: "ignoreNodeMessages",
      default: undefined,
      valid: ["PLEG"],
      invalid: true,
      message: "ignoreNodeMessages: must be a list",
    },
    {
      key: "silences",
      default: [],
      valid: [{ namespaces: ["dev"], reasons: ["OOMKilled"] }],
      invalid: [{}],
      message: "silences.0: an empty silence rule would silence everything and is rejected",
    },
    {
      key: "app.proxyURL",
      default: undefined,
      valid: "http://proxy.internal:3128",
      invalid: "proxy.internal:3128",
      message: 'app.proxyURL: must be an absolute http or https URL (got "proxy.internal:3128")',
    },
    {
      key: "app.clusterName",
      default: "",
      valid: "${CLUSTER}",
      loads: "prod-eu1",
      invalid: 42,
      message: "app.clusterName: must be text (got 42)",
    },
    {
      key: "app.disableStartupMessage",
      default: false,
      valid: true,
      invalid: "yes",
      message: 'app.disableStartupMessage: must be true or false (got "yes")',
    },
    {
      key: "app.logFormatter",
      default: "text",
      valid: "json",
      invalid: "xml",
      message: 'app.logFormatter: must be text or json (got "xml")',
    },
    {
      key: "app.insecureSkipTLSVerify",
      default: false,
      valid: true,
      invalid: 1,
      message: "app.insecureSkipTLSVerify: must be true or false (got 1)",
    },
    {
      key: "app.caBundlePath",
      default: undefined,
      valid: caPath,
      invalid: "/nonexistent/ca.pem",
      message: "app.caBundlePath: cannot read /nonexistent/ca.pem (ENOENT)",
    },
    {
      key: "app.hideProHints",
      default: false,
      valid: true,
      invalid: "no",
      message: 'app.hideProHints: must be true or false (got "no")',
    },
    {
      key: "app.communityProvider",
      default: "",
      valid: "slack",
      invalid: ["slack"],
      message: "app.communityProvider: must be text",
    },
    {
      key: "kubelet.insecureSkipVerify",
      default: false,
      valid: true,
      invalid: "true",
      message: 'kubelet.insecureSkipVerify: must be true or false (got "true")',
    },
    {
      key: "watch.secrets",
      default: true,
      valid: false,
      invalid: "off",
      message: 'watch.secrets: must be true or false (got "off")',
    },
    {
      key: "healthCheck.enabled",
      default: true,
      valid: false,
      invalid: null,
      message: "healthCheck.enabled: must be true or false (got null)",
    },
    {
      key: "healthCheck.port",
      default: 8060,
      valid: 9090,
      invalid: 70000,
      message: "healthCheck.port: must be at most 65535 (got 70000)",
    },
    {
      key: "healthCheck.address",
      default: undefined,
      valid: "::",
      invalid: "0.0.0.0:8060",
      message:
        'healthCheck.address: must be an IP address or a host name, without a port (0.0.0.0, ::, 127.0.0.1, localhost) (got "0.0.0.0:8060")',
    },
    {
      key: "healthCheck.statusEndpoint",
      default: false,
      valid: true,
      invalid: "on",
      message: 'healthCheck.statusEndpoint: must be true or false (got "on")',
    },
    {
      key: "healthCheck.diagnostics.enabled",
      default: false,
      valid: false,
      invalid: "yes",
      message: 'healthCheck.diagnostics.enabled: must be true or false (got "yes")',
    },
    {
      key: "healthCheck.diagnostics.token",
      default: undefined,
      valid: `\${file:${file("diagnostics-token", "0123456789abcdef0123")}}`,
      loads: "0123456789abcdef0123",
      invalid: "short",
      message: "healthCheck.diagnostics.token",
    },
    {
      key: "activeProbeMonitor.enabled",
      default: false,
      valid: true,
      invalid: "y",
      message: "activeProbeMonitor.enabled: must be true or false",
    },
    {
      key: "activeProbeMonitor.intervalSeconds",
      default: 30,
      valid: 60,
      invalid: 0,
      message: "activeProbeMonitor.intervalSeconds: must be at least 1 (got 0)",
    },
    {
      key: "activeProbeMonitor.timeoutSeconds",
      default: 5,
      valid: 2,
      invalid: 1.5,
      message: "activeProbeMonitor.timeoutSeconds: must be a whole number (got 1.5)",
    },
    {
      key: "activeProbeMonitor.failureThreshold",
      default: 3,
      valid: 5,
      invalid: -1,
      message: "activeProbeMonitor.failureThreshold: must be at least 1 (got -1)",
    },
    {
      key: "activeProbeMonitor.autoServices",
      default: false,
      valid: true,
      invalid: 0,
      message: "activeProbeMonitor.autoServices: must be true or false",
    },
    {
      key: "activeProbeMonitor.excludeNamespaces",
      default: [],
      valid: ["kube-system"],
      invalid: "kube-system",
      message: "activeProbeMonitor.excludeNamespaces: must be a list",
    },
    {
      key: "activeProbeMonitor.autoDependencies",
      default: false,
      valid: true,
      invalid: [],
      message: "activeProbeMonitor.autoDependencies: must be true or false",
    },
    {
      key: "activeProbeMonitor.http",
      default: [],
      valid: [
        {
          name: "shop",
          url: "https://shop.example.com/healthz",
          expectedStatus: 200,
          latencyWarningMs: 500,
          latencyCriticalMs: 2000,
        },
      ],
      invalid: [{ name: "shop", url: "shop.example.com" }],
      message: "activeProbeMonitor.http.0.url: must be an absolute http or https URL",
    },
    {
      key: "activeProbeMonitor.tcp",
      default: [],
      valid: [{ name: "db", address: "db.internal:5432" }],
      invalid: [{ name: "db", address: "db.internal" }],
      message: "activeProbeMonitor.tcp.0.address: must be host:port",
    },
    {
      key: "activeProbeMonitor.dns",
      default: [],
      valid: [{ name: "api", host: "api.example.com" }],
      invalid: [{ name: "api" }],
      message: "activeProbeMonitor.dns.0.host",
    },
    {
      key: "heartbeatMonitor.enabled",
      default: false,
      valid: true,
      invalid: "x",
      message: "heartbeatMonitor.enabled: must be true or false",
    },
    {
      key: "heartbeatMonitor.interval",
      default: 300,
      valid: 60,
      invalid: -5,
      message: "heartbeatMonitor.interval: cannot be negative (got -5)",
    },
    {
      key: "heartbeatMonitor.url",
      default: undefined,
      valid: `\${file:${heartbeatPath}}`,
      loads: "https://hc-ping.example.test/abc",
      invalid: "https://hc-ping.example.test/abc",
      message: "heartbeatMonitor.url: must be a ${file:/absolute/path} reference to a file mounted from a Secret",
    },
    {
      key: "auditLog.enabled",
      default: true,
      valid: false,
      invalid: "no",
      message: "auditLog.enabled: must be true or false",
    },
    {
      key: "auditLog.output",
      default: "stdout",
      // A relative path is valid too (the working directory's, issue 29.10).
      valid: "audit/mon.jsonl",
      invalid: "",
      message: "auditLog.output: must be stdout or a file path",
    },
    { key: "crd.enabled", default: false, valid: true, invalid: "true", message: "crd.enabled: must be true or false" },
    {
      key: "license.key",
      default: undefined,
      valid: "mon-lic-123",
      invalid: 123,
      message: "license.key: must be text",
    },
    {
      key: "upgrader.disableUpdateCheck",
      default: false,
      valid: true,
      invalid: "1",
      message: "upgrader.disableUpdateCheck: must be true or false",
    },
    {
      key: "telemetry.enabled",
      default: true,
      valid: false,
      invalid: "false",
      message: "telemetry.enabled: must be true or false",
    },
    {
      key: "alert",
      default: {},
      valid: { stdout: {} },
      invalid: { slack: "https://hooks" },
      message: "alert.slack: must be a mapping of keys to values",
    },
  ];

describe("every key of spec 2.1", () => {
  // The providers come apart from the rest of the configuration; `alert` is read back from them.
  const view = (l: { config: object; providers: readonly { name: string; options: object }[] }) => ({
    ...l.config,
    alert: Object.fromEntries(l.providers.map((p) => [p.name, p.options])),
  });
  const defaults = view(loadConfig({ env: {} }));
  for (const k of KEYS) {
    test(`${k.key}: default ${JSON.stringify(k.default)}, valid ${JSON.stringify(k.valid)}${k.invalid !== undefined ? `, invalid ${JSON.stringify(k.invalid)}` : ""}`, () => {
      expect(at(defaults, k.key)).toEqual(k.default);
      const loaded = view(parseConfig(stringify(nest(k.key, k.valid)), "config.yaml", env));
      expect(at(loaded, k.key)).toEqual(k.loads ?? k.valid);
      if (k.invalid !== undefined) expect(refusal(nest(k.key, k.invalid))).toContain(k.message!);
    });
  }

  test("the table covers every documented key of the schema", async () => {
    const { describeSchema } = await import("./describe.ts");
    const { ConfigSchema } = await import("./schema.ts");
    const documented = describeSchema(ConfigSchema)
      .map((r) => r.key)
      .filter((k) => !k.includes("[]"));
    expect(documented.filter((k) => !KEYS.some((row) => row.key === k))).toEqual([]);
  });
});

describe("loading (spec 2.1 general rules)", () => {
  test("no CONFIG_FILE: the built-in defaults run, frozen", () => {
    const { config, warnings, file } = loadConfig({ env: {} });
    expect(file).toBeUndefined();
    expect(warnings).toEqual([]);
    expect(Object.isFrozen(config.app)).toBe(true);
  });

  test("CONFIG_FILE set to a missing file refuses startup and names the path", () => {
    expect(() => loadConfig({ env: { CONFIG_FILE: "/nonexistent/config.yaml" } })).toThrow(
      "config.yaml: CONFIG_FILE: configuration file /nonexistent/config.yaml does not exist",
    );
  });

  test("${VAR} in every string; $${X} is a literal; an empty variable expands to nothing; an unset one names key and line", () => {
    const { config } = parseConfig(
      "app:\n  clusterName: ${CLUSTER}-$${NOT_EXPANDED}${EMPTY}\nsilences:\n  - containerMessages: ['${CLUSTER} down']\n",
      "c.yaml",
      env,
    );
    expect(config.app.clusterName).toBe("prod-eu1-${NOT_EXPANDED}");
    expect(config.silences[0]?.containerMessages).toEqual(["prod-eu1 down"]);
    expect(refusal({ app: { clusterName: "${MISSING}" } })).toBe(
      "config.yaml:2: app.clusterName: references ${MISSING}, which is not set",
    );
  });

  test("unknown keys warn once each with file line, full path and a suggestion; removed keys say why", () => {
    const { warnings } = parseConfig(
      "resyncSecond: 60\napp:\n  clusterNmae: x\nalert:\n  line: {}\nactiveProbeMonitor:\n  recoveryThreshold: 2\nsilences:\n  - reason: [x]\n    reasons: [y]\n",
      "config.yaml",
      env,
    );
    expect(warnings.map((w) => `${w.file}:${w.line}: ${w.message}`)).toEqual([
      "config.yaml:7: activeProbeMonitor.recoveryThreshold is removed: a probe resolves on its first success",
      "config.yaml:5: alert.line is removed: the LINE Notify provider no longer exists; the key is ignored",
      "config.yaml:1: unknown key resyncSecond (did you mean resyncSeconds?)",
      "config.yaml:3: unknown key app.clusterNmae (did you mean clusterName?)",
      "config.yaml:9: unknown key silences.0.reason (did you mean reasons?); silence 0 is not applied, so that it cannot silence more than it names",
      "config.yaml:10: silences.0.reasons: no failure reason is named y; it matches nothing",
    ]);
  });

  const SILENCE_FIELDS = [
    "namespaces",
    "reasons",
    "podNamePatterns",
    "containerNames",
    "containerMessages",
    "eventMessages",
    "nodeReasons",
    "nodeMessages",
  ];
  test("a silence with an unknown key is not applied, whatever the key: its scope never widens (issue 52 item 4)", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z][a-zA-Z]{2,12}$/).filter((k) => !SILENCE_FIELDS.includes(k)),
        fc.nat(3),
        (typo, at) => {
          const silences = [
            { namespaces: ["a"], reasons: ["OOMKilled"] },
            { namespaces: ["b"], reasons: ["ImagePullBackOff"] },
            { namespaces: ["c"], reasons: ["Evicted"] },
          ];
          const broken = at % silences.length;
          const rules: Record<string, unknown>[] = silences.map((r) => ({ ...r }));
          delete rules[broken]!.namespaces;
          rules[broken]![typo] = ["staging"];
          const { config, warnings } = parseConfig(stringify({ silences: rules }), "config.yaml", env);
          expect(config!.silences).toEqual(silences.filter((_, i) => i !== broken));
          const said = warnings
            .map((w) => w.message)
            .find((m) => m.startsWith(`unknown key silences.${broken}.${typo}`));
          expect(said).toEndWith(`; silence ${broken} is not applied, so that it cannot silence more than it names`);
        },
      ),
    );
  });

  test("each deprecated ignore* list becomes one silence rule, with a warning", () => {
    const { config, warnings } = parseConfig(
      "ignoreContainerNames: [istio-proxy]\nignorePodNames: ['^debug-']\nsilences:\n  - reasons: [OOMKilled]\n",
      "c.yaml",
      env,
    );
    expect(config.silences).toEqual([
      { reasons: ["OOMKilled"] },
      { containerNames: ["istio-proxy"] },
      { podNamePatterns: ["^debug-"] },
    ]);
    expect(warnings.map((w) => w.rule)).toEqual(["deprecated_key", "deprecated_key"]);
  });

  test("namespaces and namespaceSelector cannot be used together", () => {
    expect(refusal({ namespaces: ["shop"], namespaceSelector: { matchLabels: { a: "b" } } })).toContain(
      "namespaceSelector: use namespaces or namespaceSelector, not both",
    );
  });

  test("a proxy URL with credentials must come from a file; from a file it is accepted and never shown", () => {
    const inline = refusal({ app: { proxyURL: "http://user:pa55@proxy.internal:3128" } });
    expect(inline).toBe(
      "config.yaml:2: app.proxyURL: a URL with credentials (http://***@proxy.internal:3128) must be given as a ${file:/absolute/path} reference",
    );
    expect(inline).not.toContain("pa55");
    const { config } = parseConfig(stringify({ app: { proxyURL: `\${file:${proxyPath}}` } }), "c.yaml", env);
    expect(config.app.proxyURL).toBe("http://user:pa55@proxy.internal:3128");
  });

  test("a CA bundle without a PEM certificate refuses startup", () => {
    expect(refusal({ app: { caBundlePath: file("not-a-ca.pem", "hello") } })).toBe(
      `config.yaml:2: app.caBundlePath: ${join(dir, "not-a-ca.pem")} contains no PEM certificate`,
    );
    expect(parseConfig(stringify({ app: { caBundlePath: caPath } }), "c.yaml", env).caBundle).toContain(
      "BEGIN CERTIFICATE",
    );
  });

  test("diagnostics need a token, and the token must come from a file (it is a credential)", () => {
    expect(refusal({ healthCheck: { diagnostics: { enabled: true } } })).toContain(
      "healthCheck.diagnostics.enabled needs healthCheck.diagnostics.token",
    );
    expect(refusal({ healthCheck: { diagnostics: { enabled: true, token: "0123456789abcdef0123" } } })).toContain(
      "healthCheck.diagnostics.token",
    );
    const tokenPath = file("diag-token", "0123456789abcdef0123\n");
    const { config } = parseConfig(
      stringify({ healthCheck: { diagnostics: { enabled: true, token: `\${file:${tokenPath}}` } } }),
      "c.yaml",
      env,
    );
    expect(config.healthCheck.diagnostics).toEqual({ enabled: true, token: "0123456789abcdef0123" });
  });

  test("Pro settings present in the file are named once in a warning (Community)", () => {
    const { warnings } = parseConfig(
      stringify({ runbooks: { OOMKilled: "https://wiki/oom" }, healthCheck: { statusEndpoint: true } }),
      "c.yaml",
      env,
    );
    expect(warnings.filter((w) => w.rule === "pro_only").map((w) => w.key)).toEqual([
      "runbooks",
      "healthCheck.statusEndpoint",
    ]);
  });

  test("environment variables override the file (spec 8)", () => {
    const text = stringify({
      watch: { secrets: true },
      crd: { enabled: true },
      telemetry: { enabled: true },
      license: { key: "from-file" },
    });
    const { config, runtime } = parseConfig(text, "c.yaml", {
      MON_WATCH_SECRETS: "FALSE",
      MON_CRD_ENABLED: "off",
      MON_TELEMETRY: "No",
      MON_LICENSE_KEY: "from-env",
      SKIP_UPGRADE_CHECK: "yes",
      MON_DATA_DIR: "/data",
      MON_VOLUME_LIMIT: "2Gi",
      MON_MEMORY_LIMIT: "536870912",
      MON_INSTALLATION_ID: "abc",
      POD_NAME: "mon-0",
      POD_NAMESPACE: "ops",
      POD_UID: "u1",
      NODE_NAME: "n1",
    });
    expect([
      config.watch.secrets,
      config.crd.enabled,
      config.telemetry.enabled,
      config.license.key,
      config.upgrader.disableUpdateCheck,
    ]).toEqual([false, false, false, "from-env", true]);
    expect(runtime).toMatchObject({
      dataDir: "/data",
      volumeLimitBytes: 2 * 2 ** 30,
      memoryLimitBytes: 536870912,
      leaseName: "abc-leader",
      podName: "mon-0",
      podNamespace: "ops",
      podUid: "u1",
      nodeName: "n1",
      ci: false,
    });
    expect(
      parseConfig("watch:\n  secrets: false\n", "c.yaml", { MON_WATCH_SECRETS: "true" }).config.watch.secrets,
    ).toBe(false);
  });

  test("lint-style checking reports every error, not only the first", () => {
    const { problems } = checkConfig("resyncSeconds: 5\napp:\n  logFormatter: xml\n", "c.yaml", {
      MON_TELEMETRY: "maybe",
    });
    expect(problems.map((p) => p.key)).toEqual(["MON_TELEMETRY", "resyncSeconds", "app.logFormatter"]);
  });

  test("YAML syntax errors and non-mappings refuse startup with a line", () => {
    expect(checkConfig("app: [1, 2\n", "c.yaml", {}).problems[0]).toMatchObject({ rule: "yaml_syntax", line: 2 });
    expect(checkConfig("- a\n", "c.yaml", {}).problems[0]).toMatchObject({
      rule: "invalid_value",
      line: 1,
      message: "the configuration must be a YAML mapping of keys to values",
    });
    expect(checkConfig("a: 1\na: 2\n", "c.yaml", {}).problems[0]).toMatchObject({ rule: "yaml_syntax" });
  });
});

describe("hostile YAML", () => {
  test("an unresolved alias and an alias bomb are refused with a clear problem, never a crash", () => {
    expect(checkConfig("*!", "c.yaml", {}).problems[0]).toMatchObject({
      rule: "yaml_syntax",
      message: "Unresolved alias (the anchor must be set before the alias): !",
    });
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      ...Array.from(
        { length: 8 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(", ")}]`,
      ),
    ].join("\n");
    expect(checkConfig(bomb, "c.yaml", {}).problems[0]).toMatchObject({ rule: "yaml_syntax" });
  });
});

describe("${file:} references are read defensively (issue 19)", () => {
  test("a device or a FIFO is refused by name, without reading it (/dev/zero would exhaust memory, a FIFO hang)", () => {
    const fifo = join(dir, "fifo");
    Bun.spawnSync(["mkfifo", fifo]);
    const { problems } = checkConfig(
      stringify({ alert: { slack: { webhook: "${file:/dev/zero}" }, discord: { webhookUrl: `\${file:${fifo}}` } } }),
      "c.yaml",
      {},
    );
    expect(problems.map((p) => p.message)).toEqual(
      expect.arrayContaining([
        "alert.slack.webhook: /dev/zero is not a regular file (a credential is a file mounted from a Secret)",
        `alert.discord.webhookUrl: ${fifo} is not a regular file (a credential is a file mounted from a Secret)`,
      ]),
    );
  });

  test("a file over 64 KiB is refused as too large for a credential", () => {
    const big = file("big", "x".repeat(65 * 1024));
    const { problems } = checkConfig(stringify({ alert: { slack: { webhook: `\${file:${big}}` } } }), "c.yaml", {});
    expect(problems.map((p) => p.message)).toContain(
      `alert.slack.webhook: ${big} is larger than 64 KiB, too large for a credential`,
    );
  });

  test("an app.proxyURL read from a file that is not a URL is refused without quoting what the file holds", () => {
    const bad = file("bad-proxy", "http://user:s3cretP4ss@proxy bad url\n");
    const { problems } = checkConfig(stringify({ app: { proxyURL: `\${file:${bad}}` } }), "c.yaml", {});
    const message = problems.find((p) => p.key === "app.proxyURL")!.message;
    expect(message).toBe("app.proxyURL: must be an absolute http or https URL");
    expect(JSON.stringify(problems)).not.toContain("s3cretP4ss");
  });
});
