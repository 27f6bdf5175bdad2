import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSimPki } from "../sim/pki.ts";
import { startCaptureServer } from "../testing/capture-server.ts";
import { runCli } from "../testing/cli.ts";

const dir = mkdtempSync(join(tmpdir(), "mon-lint-"));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

/** Runs the real CLI (`bun src/main.ts ...`) with a clean environment plus `env`. */
function mon(args: string[], env: Record<string, string> = {}) {
  return runCli(args, { env, home: dir });
}

const hookFile = file("hook", "https://hooks.slack.com/services/T/B/x\n");
const caFile = file("ca.pem", createSimPki().caCert);

/**
 * Every startup failure of spec 7.2, through the real `mon run`: exit code 1 and one line naming the key,
 * the value (never a secret) and the rule. `mon run` refuses before it ever connects to a cluster.
 */
const STARTUP_FAILURES: {
  name: string;
  config?: string;
  env?: Record<string, string>;
  line: string;
  secret?: string;
}[] = [
  {
    name: "invalid app.proxyURL",
    config: "app:\n  proxyURL: proxy.internal:3128\n",
    line: 'config.yaml:2: app.proxyURL: must be an absolute http or https URL (got "proxy.internal:3128")',
  },
  {
    name: "app.proxyURL with inline credentials",
    config: "app:\n  proxyURL: http://u:hunter2@proxy:3128\n",
    line: "config.yaml:2: app.proxyURL: a URL with credentials (http://***@proxy:3128) must be given as a ${file:/absolute/path} reference",
    secret: "hunter2",
  },
  {
    name: "missing app.caBundlePath",
    config: "app:\n  caBundlePath: /nonexistent/ca.pem\n",
    line: "config.yaml:2: app.caBundlePath: cannot read /nonexistent/ca.pem (ENOENT)",
  },
  {
    name: "invalid app.caBundlePath",
    config: `app:\n  caBundlePath: ${hookFile}\n`,
    line: `config.yaml:2: app.caBundlePath: ${hookFile} contains no PEM certificate`,
  },
  {
    name: "app.logFormatter other than text or json",
    config: "app:\n  logFormatter: logfmt\n",
    line: 'config.yaml:2: app.logFormatter: must be text or json (got "logfmt")',
  },
  {
    name: "a severity outside the five",
    config: "severityByReason:\n  OOMKilled: sev1\n",
    line: 'config.yaml:2: severityByReason.OOMKilled: must be one of critical, high, medium, warning, normal (any letter case) (got "sev1")',
  },
  {
    name: "an empty silence rule",
    config: "silences:\n  - {}\n",
    line: "config.yaml:2: silences.0: an empty silence rule would silence everything and is rejected",
  },
  {
    name: "a template that does not parse",
    config: "templates:\n  OOMKilled: '{{.Message'\n",
    line: "config.yaml:2: templates.OOMKilled: template does not parse: unclosed action at offset 0",
  },
  {
    name: "a runbook that is not an absolute http(s) URL",
    config: "runbooks:\n  OOMKilled: /wiki/oom\n",
    line: 'config.yaml:2: runbooks.OOMKilled: must be an absolute http or https URL (got "/wiki/oom")',
  },
  {
    name: "an unset ${VAR}",
    config: "app:\n  clusterName: ${CLUSTER_NAME}\n",
    line: "config.yaml:2: app.clusterName: references ${CLUSTER_NAME}, which is not set",
  },
  {
    name: "CONFIG_FILE set to a missing file",
    env: { CONFIG_FILE: "/nonexistent/config.yaml" },
    line: "config.yaml: CONFIG_FILE: configuration file /nonexistent/config.yaml does not exist",
  },
  {
    name: "MON_WATCH_SECRETS not a boolean",
    env: { MON_WATCH_SECRETS: "sometimes" },
    line: 'MON_WATCH_SECRETS: "sometimes" is not a boolean (true/false, 1/0, on/off, yes/no)',
  },
  {
    name: "MON_CRD_ENABLED not a boolean",
    env: { MON_CRD_ENABLED: "enabled" },
    line: 'MON_CRD_ENABLED: "enabled" is not a boolean',
  },
  {
    name: "MON_TELEMETRY not a boolean",
    env: { MON_TELEMETRY: "nope" },
    line: 'MON_TELEMETRY: "nope" is not a boolean',
  },
  {
    name: "MON_VOLUME_LIMIT unreadable",
    env: { MON_VOLUME_LIMIT: "2 gigs" },
    line: 'MON_VOLUME_LIMIT: "2 gigs" is not a Kubernetes quantity such as 2Gi',
  },
  {
    name: "MON_MEMORY_LIMIT not a positive number",
    env: { MON_MEMORY_LIMIT: "-1" },
    line: 'MON_MEMORY_LIMIT: "-1" is not a positive number of bytes',
  },
  {
    name: "POD_NAME without a Lease name",
    env: { POD_NAME: "mon-0" },
    line: "POD_NAME: is set but neither MON_LEADER_ELECTION_NAME nor MON_INSTALLATION_ID names the state-lock Lease",
  },
  {
    name: "a provider that cannot be constructed",
    config: "alert:\n  slack:\n    webhook: https://hooks.slack.com/services/T/B/hunter2\n",
    line: "config.yaml:3: alert.slack.webhook: credentials must be given as ${file:/absolute/path} (a file mounted from a Secret)",
    secret: "hunter2",
  },
  {
    // Issue 29.10: named as the relative file reference it is, not as a URL that is not absolute.
    name: "a ${file:} reference with a relative path",
    config: "alert:\n  webhook:\n    url: ${file:secrets/hook}\n",
    line: "config.yaml:3: alert.webhook.url: ${file:secrets/hook} is a relative path; a ${file:} reference takes an absolute path, such as ${file:/etc/mon/secrets/secrets/hook} (the file mounted from a Secret)",
  },
  {
    name: "healthCheck.address with a port",
    config: "healthCheck:\n  address: 0.0.0.0:8060\n",
    line: 'config.yaml:2: healthCheck.address: must be an IP address or a host name, without a port (0.0.0.0, ::, 127.0.0.1, localhost) (got "0.0.0.0:8060")',
  },
  {
    name: "resyncSeconds neither 0 nor at least 30",
    config: "resyncSeconds: 15\n",
    line: "config.yaml:1: resyncSeconds: must be 0 (off) or at least 30 (got 15)",
  },
];

describe("mon run refuses to start (spec 7.2)", () => {
  for (const f of STARTUP_FAILURES) {
    test(f.name, async () => {
      const env = { ...(f.config ? { CONFIG_FILE: file("config.yaml", f.config) } : {}), ...f.env };
      const { code, stderr } = await mon(["run", "--kubeconfig", "/nonexistent/kubeconfig"], env);
      expect(code).toBe(1);
      expect(stderr).toContain(f.line);
      expect(
        stderr
          .trim()
          .split("\n")
          .filter((l) => l.includes("configuration:")),
      ).toHaveLength(1);
      if (f.secret) expect(stderr).not.toContain(f.secret);
    });
  }

  test("SKIP_UPGRADE_CHECK with other text is logged and ignored, not a failure", async () => {
    const { code, stdout } = await mon(["lint", file("ok.yaml", "alert:\n  stdout: {}\n")], {
      SKIP_UPGRADE_CHECK: "maybe",
    });
    expect(code).toBe(0);
    expect(stdout).toContain('environment: warning: SKIP_UPGRADE_CHECK: "maybe" is not a boolean; ignored');
  });
});

describe("mon lint (spec 4.4)", () => {
  test("one file:line: level: message line per problem, then a summary; exit 1 on errors", async () => {
    const path = file(
      "bad.yaml",
      "app:\n  clusterNmae: x\n  logFormatter: xml\nresyncSeconds: 10\nalert:\n  slack:\n    webhook: ${file:" +
        hookFile +
        "}\n  webhook:\n    url: https://tools.example.test/mon\n",
    );
    const { code, stdout } = await mon(["lint", path]);
    expect(code).toBe(1);
    expect(stdout).toBe(
      [
        `${path}:2: warning: unknown key app.clusterNmae (did you mean clusterName?)`,
        `${path}:3: error: app.logFormatter: must be text or json (got "xml")`,
        `${path}:4: error: resyncSeconds: must be 0 (off) or at least 30 (got 10)`,
        `${path}: invalid (2 errors, 1 warning); not delivering: mon refuses to start with errors`,
        "",
      ].join("\n"),
    );
  });

  test("a clean file exits 0; warnings alone still exit 0; --strict turns unknown keys into errors", async () => {
    const clean = file("clean.yaml", "alert:\n  stdout: {}\n");
    expect(await mon(["lint", clean])).toMatchObject({
      code: 0,
      stdout: `${clean}: valid (0 errors, 0 warnings); delivering to stdout\n`,
    });
    // `-` reads standard input.
    const piped = await runCli(["lint", "-"], { home: dir, stdin: "resyncSeconds: 5\nalert:\n  stdout: {}\n" });
    expect(piped.code).toBe(1);
    expect(piped.stdout).toContain("<stdin>:1: error: resyncSeconds: must be 0 (off) or at least 30 (got 5)");
    const typo = file("typo.yaml", "app:\n  clusterNmae: x\nalert:\n  stdout: {}\n");
    expect((await mon(["lint", typo])).code).toBe(0);
    const strict = await mon(["lint", "--strict", typo]);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain(`${typo}:2: error: unknown key app.clusterNmae`);
  });

  // Issue 29.5: with Slack and PagerDuty, PagerDuty (first by name) received everything and lint said nothing.
  test("Community with several providers: a chat provider over a pager, and lint says what Community leaves out", async () => {
    const key = file("pd-key", "0123456789abcdef0123456789abcdef\n");
    const both = file(
      "both.yaml",
      `alert:\n  pagerDuty:\n    routingKey: \${file:${key}}\n    routes:\n      - severities: [critical]\n  slack:\n    webhook: \${file:${hookFile}}\n    fallback: pagerDuty\n`,
    );
    const out = await mon(["lint", both]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(
      `${both}:1: warning: Community delivers every incident to one provider: slack (chosen: a chat provider over an informational one over a tracker over a pager; set app.communityProvider to choose); pagerDuty receives nothing without Pro`,
    );
    expect(out.stdout).toContain(
      `${both}:4: warning: alert.pagerDuty.routes: routes are a Pro setting; in Community they have no effect and slack receives every incident`,
    );
    expect(out.stdout).toContain(
      `${both}:8: warning: alert.slack.fallback: in Community only slack receives messages, so pagerDuty never takes over`,
    );
    expect(out.stdout).toContain(
      "valid (0 errors, 3 warnings); delivering to slack (inactive in Community: pagerDuty)",
    );
    // With a license key the license decides: nothing to warn about yet.
    const licensed = await mon(["lint", both], { MON_LICENSE_KEY: "MON-TEST-KEY" });
    expect(licensed.stdout).not.toContain("Community delivers");
  });

  test("--overlay merges MonConfig objects over the file as mon would, and names the object at fault", async () => {
    const base = file("base.yaml", "app:\n  clusterName: prod\nalert:\n  stdout: {}\n");
    const good = file(
      "good-overlay.yaml",
      "apiVersion: mon.io/v1beta1\nkind: MonConfig\nmetadata: {name: quiet, namespace: mon}\nspec:\n  namespaces: ['!batch']\n  resyncSeconds: 60\n",
    );
    expect(await mon(["lint", base, "--overlay", good])).toMatchObject({
      code: 0,
      stdout: `${base}: valid (0 errors, 0 warnings); delivering to stdout\n`,
    });
    const bad = file(
      "bad-overlay.yaml",
      [
        "apiVersion: mon.io/v1beta1",
        "kind: MonConfig",
        "metadata: {name: a}",
        "spec:",
        "  resyncSeconds: 10",
        "---",
        "apiVersion: mon.io/v1beta1",
        "kind: MonConfig",
        "metadata: {name: b}",
        "spec:",
        "  alert: {webhook: {url: https://x.test}}",
        "  app: {clusterName: '${HOSTNAME}'}",
        "",
      ].join("\n"),
    );
    const { code, stdout } = await mon(["lint", base, "--overlay", bad]);
    expect(code).toBe(1);
    expect(stdout).toContain("MonConfig mon/b: error: spec.alert: not settable in the overlay");
    expect(stdout).toContain("MonConfig mon/b: error: spec.app.clusterName: ${...} references are not expanded");
    const other = file("deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n");
    expect((await mon(["lint", base, "--overlay", other])).stdout).toContain("Deployment is not a MonConfig");
  });

  // Issue 41, item 8.
  test("a silence rule with an error does not hide a misspelt reason elsewhere: lint reports all of them at once", async () => {
    const both = file(
      "silence-error.yaml",
      'alert:\n  stdout: {}\nsilences:\n  - namespaces: [batch]\n    reasons: [CrashLoopBakOff]\n    podNamePatterns: ["nightly-("]\nseverityByReason:\n  ImagePulBackOff: warning\n',
    );
    const out = await mon(["lint", both]);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(`${both}:6: error: silences.0.podNamePatterns.0`);
    expect(out.stdout).toContain(
      "warning: silences.0.reasons: no failure reason is named CrashLoopBakOff (did you mean CrashLoopBackOff?)",
    );
    expect(out.stdout).toContain(
      "warning: severityByReason: no failure reason is named ImagePulBackOff (did you mean ImagePullBackOff?)",
    );
  });

  test("healthCheck.statusEndpoint in Community: lint says what it still does (/status in text), not 'no effect'", async () => {
    const status = file("status.yaml", "alert:\n  stdout: {}\nhealthCheck:\n  statusEndpoint: true\n");
    const out = await mon(["lint", status]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(
      `${status}:4: warning: healthCheck.statusEndpoint is a Pro setting; in Community (no license) only this: /status is served in its text form with its Edition section; ?format=json answers 402 (pro_required)`,
    );
    expect(out.stdout).not.toContain("statusEndpoint is a Pro setting; it has no effect");
  });

  test("heartbeatMonitor.enabled without a url is a warning: nothing would be pinged", async () => {
    const path = file("hb.yaml", "heartbeatMonitor:\n  enabled: true\nalert:\n  stdout: {}\n");
    const { code, stdout } = await mon(["lint", path]);
    expect(code).toBe(0);
    expect(stdout).toContain(`${path}:2: warning: heartbeatMonitor.enabled needs heartbeatMonitor.url`);
  });

  test("no provider configured is a warning", async () => {
    const none = file("none.yaml", "app:\n  clusterName: x\n");
    const { code, stdout } = await mon(["lint", none]);
    expect(code).toBe(0);
    expect(stdout).toContain(`${none}: warning: no alert provider is configured`);
  });

  test("a provider with a mistake is named by its own error, not by 'no alert provider' (issue 29.15)", async () => {
    const wrong = file("wrong.yaml", "alert:\n  slack:\n    webhook: https://hooks.slack.com/services/T/B/hunter2\n");
    const { code, stdout } = await mon(["lint", wrong]);
    expect(code).toBe(1);
    expect(stdout).toContain("alert.slack.webhook: credentials must be given as ${file:/absolute/path}");
    expect(stdout).not.toContain("no alert provider is configured");
    const unknown = file("unknown.yaml", "alert:\n  slakc:\n    webhook: x\n");
    const typo = await mon(["lint", unknown]);
    expect(typo.stdout).toContain("unknown provider alert.slakc (did you mean slack?); it is ignored");
    expect(typo.stdout).not.toContain("no alert provider is configured");
  });

  test("one YAML syntax error does not hide the file's other problems (issue 29.15)", async () => {
    const broken = file(
      "broken.yaml",
      [
        "app:",
        "  logFormatter: logfmt",
        "silences:",
        "  - namespaces: [a, b",
        "alert:",
        "  webhook:",
        "    url: ${file:relative}",
        "resyncSeconds: 15",
        "",
      ].join("\n"),
    );
    const { code, stdout } = await mon(["lint", broken]);
    expect(code).toBe(1);
    const errors = stdout.split("\n").filter((l) => l.includes(": error: "));
    expect(errors.map((l) => l.replace(/^.*?:(\d+): error: .*$/, "$1"))).toEqual(["2", "5", "7", "8"]);
    expect(stdout).toContain("Flow sequence in block collection must be sufficiently indented");
    expect(stdout).toContain('app.logFormatter: must be text or json (got "logfmt")');
    expect(stdout).toContain("resyncSeconds: must be 0 (off) or at least 30 (got 15)");
    expect(stdout).toContain("${file:relative} is a relative path");
  });

  test("exit 2 when the file cannot be read; CONFIG_FILE is used without an argument", async () => {
    expect(await mon(["lint", join(dir, "missing.yaml")])).toMatchObject({ code: 2 });
    const viaEnv = file("via-env.yaml", "alert:\n  stdout: {}\n");
    expect(await mon(["lint"], { CONFIG_FILE: viaEnv })).toMatchObject({
      code: 0,
      stdout: `${viaEnv}: valid (0 errors, 0 warnings); delivering to stdout\n`,
    });
  });

  test("--format json reports the same for CI systems", async () => {
    const j = file("j.yaml", "resyncSeconds: 5\nalert:\n  stdout: {}\n");
    const { code, stdout } = await mon(["lint", "--format", "json", j]);
    expect(code).toBe(1);
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({
      file: j,
      errors: 1,
      warnings: 0,
      exitCode: 1,
      providers: { kept: ["stdout"], inactive: [] },
    });
    expect(report.problems[0]).toMatchObject({ level: "error", rule: "invalid_value", key: "resyncSeconds", line: 1 });
  });

  test("--check calls the provider's side-effect-free check (Slack auth.test) and reports a refusal", async () => {
    const slack = await startCaptureServer();
    try {
      const token = file("token", "xoxb-1\n");
      slack.queue({ status: 200, body: JSON.stringify({ ok: false, error: "invalid_auth" }) });
      const path = file(
        "check.yaml",
        `alert:\n  slack:\n    token: \${file:${token}}\n    channel: C1\n    apiUrl: ${slack.url}\n`,
      );
      const { code, stdout } = await mon(["lint", "--check", path]);
      expect(slack.requests.map((r) => r.path)).toEqual(["/auth.test"]);
      expect(code).toBe(1);
      expect(stdout).toContain(`${path}: error: alert.slack: credential check failed (slack_invalid_auth)`);
      expect(stdout).toContain("alert.slack: check: failed: slack_invalid_auth");
      slack.queue({ status: 200, body: JSON.stringify({ ok: true }) });
      const ok = await mon(["lint", "--check", path]);
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain("alert.slack: check: credentials accepted");
    } finally {
      await slack.close();
    }
  });

  test("--check works the same for any provider that has a check (Telegram getMe, getChat)", async () => {
    const telegram = await startCaptureServer();
    try {
      telegram.setDefault({ status: 200, body: JSON.stringify({ ok: true, result: {} }) });
      const token = file("tg-token", "123456789:AAF-secret_token_value_xyz\n");
      const path = file(
        "tg.yaml",
        `alert:\n  telegram:\n    botToken: \${file:${token}}\n    chatId: -100123\n    apiUrl: ${telegram.url}\n`,
      );
      const { code, stdout } = await mon(["lint", "--check", path]);
      expect(telegram.requests.map((r) => r.path.replace(/bot[^/]+/, "bot…"))).toEqual([
        "/bot…/getMe",
        "/bot…/getChat",
      ]);
      expect(code).toBe(0);
      expect(stdout).toContain("alert.telegram: check: credentials accepted");
    } finally {
      await telegram.close();
    }
  });

  test("a CA bundle is checked by lint as by startup", async () => {
    expect((await mon(["lint", file("ca.yaml", `app:\n  caBundlePath: ${caFile}\nalert:\n  stdout: {}\n`)])).code).toBe(
      0,
    );
  });
});
