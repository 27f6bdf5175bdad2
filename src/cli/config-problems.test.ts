import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../testing/cli.ts";

/**
 * Configuration mistakes that used to pass silently (a typo inside a route, an unquoted `!`, a credential
 * inside a URL…), through the real CLI: `mon lint` prints each at its line, `--strict` fails on the ones that
 * are only warnings, and `mon run` either refuses with the same line or logs it before it does anything else.
 */
const dir = mkdtempSync(join(tmpdir(), "mon-config-problems-"));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const mon = (args: string[], env: Record<string, string> = {}) => runCli(args, { env, home: dir });

const hook = "  webhook:\n    url: https://hooks.example.test/mon\n";

const PROBLEMS: {
  name: string;
  config: string;
  /** The lint line (`file:line: level: message`). */
  line: string;
  level: "error" | "warning";
  secret?: string;
}[] = [
  {
    name: "a misspelled field inside a provider's route",
    config: `alert:\n${hook}    routes:\n      - namespace: [shop]\n        reasons: [CrashLoopBackOff]\n`,
    line: "c.yaml:5: warning: unknown key alert.webhook.routes.0.namespace (did you mean namespaces?)",
    level: "warning",
  },
  {
    name: "a route whose only field is misspelled (it would match everything)",
    config: `alert:\n${hook}    routes:\n      - namespace: [shop]\n`,
    line: "c.yaml:5: error: alert.webhook.routes.0: a route must set namespaces, severities, reasons or owners (an empty route would match everything)",
    level: "error",
  },
  {
    name: "a misspelled retry setting",
    config: `alert:\n${hook}    retry:\n      maxAtempts: 3\n`,
    line: "c.yaml:5: warning: unknown key alert.webhook.retry.maxAtempts (did you mean maxAttempts?)",
    level: "warning",
  },
  {
    name: "an unknown provider name",
    config: `alert:\n${hook}  slakc:\n    webhook: x\n`,
    line: "c.yaml:4: warning: unknown provider alert.slakc (did you mean slack?); it is ignored",
    level: "warning",
  },
  {
    name: "a removed key: activeProbeMonitor.recoveryThreshold",
    config: `activeProbeMonitor:\n  recoveryThreshold: 2\nalert:\n${hook}`,
    line: "c.yaml:2: warning: activeProbeMonitor.recoveryThreshold is removed: a probe resolves on its first success",
    level: "warning",
  },
  {
    name: "a removed key: alert.line",
    config: `alert:\n${hook}  line:\n    token: x\n`,
    line: "c.yaml:4: warning: alert.line is removed: the LINE Notify provider no longer exists; the key is ignored",
    level: "warning",
  },
  {
    name: "an unquoted ! entry is a YAML tag, not an excluded namespace",
    config: `namespaces: [!kube-system]\nalert:\n${hook}`,
    line: 'c.yaml:1: error: Unresolved tag: !kube-system (quote entries that start with !, as in "!kube-system")',
    level: "error",
  },
  {
    name: "an unquoted ! entry in a block list",
    config: `reasons:\n  - !OOMKilled\nalert:\n${hook}`,
    line: 'c.yaml:2: error: Unresolved tag: !OOMKilled (quote entries that start with !, as in "!kube-system")',
    level: "error",
  },
  {
    name: "an empty name where a name is required",
    config: `namespaces: ["shop", ""]\nalert:\n${hook}`,
    line: "c.yaml:1: error: namespaces.1: must not be empty",
    level: "error",
  },
  {
    name: "a credential inside a URL written inline",
    config: "alert:\n  webhook:\n    url: https://mon:hunter2@hooks.example.test/mon\n",
    line: "c.yaml:3: error: alert.webhook.url: this URL carries a credential (user information before @); give the whole URL as ${file:/absolute/path} (a file mounted from a Secret)",
    level: "error",
    secret: "hunter2",
  },
  {
    name: "a token in a URL's query written inline",
    config: "alert:\n  webhook:\n    url: https://hooks.example.test/mon?token=hunter2\n",
    line: "c.yaml:3: error: alert.webhook.url: this URL carries a credential (the query parameter token); give the whole URL as ${file:/absolute/path} (a file mounted from a Secret)",
    level: "error",
    secret: "hunter2",
  },
  {
    name: "a reason no catalogue reason matches",
    config: `reasons: [CrashLoopBackof]\nalert:\n${hook}`,
    line: "c.yaml:1: warning: reasons: no failure reason is named CrashLoopBackof (did you mean CrashLoopBackOff?); it matches nothing",
    level: "warning",
  },
  {
    name: "a silence reason no catalogue reason matches",
    config: `silences:\n  - reasons: [OOMKiled]\nalert:\n${hook}`,
    line: "c.yaml:2: warning: silences.0.reasons: no failure reason is named OOMKiled (did you mean OOMKilled?); it matches nothing",
    level: "warning",
  },
];

describe("configuration problems: mon lint and mon run agree (spec 2.1, 2.4, 4.4, 7.2)", () => {
  for (const p of PROBLEMS) {
    test(`lint: ${p.name}`, async () => {
      const path = file("c.yaml", p.config);
      const plain = await mon(["lint", path]);
      expect(plain.stdout).toContain(p.line);
      expect(plain.code).toBe(p.level === "error" ? 1 : 0);
      const strict = await mon(["lint", "--strict", path]);
      expect(strict.code).toBe(1);
      expect(strict.stdout).toContain(p.line.replace(": warning: ", ": error: "));
      if (p.secret) expect(plain.stdout + strict.stdout).not.toContain(p.secret);
    });

    test(`run: ${p.name}`, async () => {
      const { code, stderr } = await mon(["run", "--kubeconfig", "/nonexistent/kubeconfig"], {
        CONFIG_FILE: file("c.yaml", p.config),
      });
      // Errors refuse startup; warnings are logged before mon goes on (here it then fails on the kubeconfig).
      expect(code).toBe(1);
      const message = p.line.replace(/^c\.yaml:(\d+): (error|warning): /, "c.yaml:$1: ");
      expect(stderr).toContain(message);
      if (p.level === "warning") expect(stderr).toContain("/nonexistent/kubeconfig");
      else expect(stderr).not.toContain("/nonexistent/kubeconfig");
      if (p.secret) expect(stderr).not.toContain(p.secret);
    });
  }
});
