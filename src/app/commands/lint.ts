import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { checkConfig, checkConfigSource } from "../../config/load.ts";
import { readOverlayFile } from "../../config/overlay.ts";
import type { ConfigProblem } from "../../config/errors.ts";
import type { Outcome } from "../../model/dispatch.ts";
import { communityNotes, createRouter } from "../../route/router.ts";
import { createSilentLogger } from "../../runtime/logger.ts";
import { CONFIG_DOMAIN } from "../../config-domain.ts";
import { prepareProviders } from "../delivery/prepare.ts";

/** What `mon lint` found (spec 4.4). `exitCode`: 0 clean or warnings only, 1 errors, 2 the file could not be read. */
export interface LintReport {
  readonly file?: string;
  readonly problems: readonly ConfigProblem[];
  readonly providers: { readonly kept: readonly string[]; readonly inactive: readonly string[] };
  readonly checks: readonly { readonly provider: string; readonly outcome: Outcome | { kind: "unsupported" } }[];
  readonly errors: number;
  readonly warnings: number;
  readonly exitCode: 0 | 1 | 2;
}

/**
 * Validates exactly what startup validates (configuration, environment, providers constructible), warns when
 * no provider is configured, turns unknown keys into errors with `strict`, and with `check` calls each
 * provider's side-effect-free credential check (10 s each). Never throws for bad input.
 */
export async function lint(options: {
  env: Readonly<Record<string, string | undefined>>;
  path?: string;
  strict?: boolean;
  check?: boolean;
  /** A file of MonConfig objects to merge over the configuration, as the running mon would (spec 2.5). */
  overlay?: string;
  /** Reads the configuration for `path` `-` (default: standard input). */
  stdin?: () => string;
}): Promise<LintReport> {
  // `-` is standard input; a file is named as it was given (a relative path stays relative).
  const given = options.path ?? (options.env.CONFIG_FILE || undefined);
  const shown = given === "-" ? "<stdin>" : given;
  const base =
    given === "-"
      ? checkConfig((options.stdin ?? (() => readFileSync(0, "utf8")))(), "<stdin>", options.env, CONFIG_DOMAIN)
      : checkConfigSource({ ...options, domain: CONFIG_DOMAIN });
  const overlays = options.overlay ? readOverlayFile(options.overlay) : undefined;
  const checked = overlays?.sources.length ? base.withOverlays(overlays.sources) : base;
  const problems: ConfigProblem[] = [...(overlays?.problems ?? []), ...checked.problems];
  const unreadable = problems.some((p) => p.rule === "file_missing" || p.rule === "file_unreadable");
  let kept: string[] = [];
  let inactive: string[] = [];
  const checks: { provider: string; outcome: Outcome | { kind: "unsupported" } }[] = [];
  {
    const config = checked.config;
    const built = prepareProviders(checked, { logger: createSilentLogger(), stdout: () => {} });
    problems.push(...built.problems);
    const routed = built.providers.map((p) => ({ name: p.definition.name, kind: p.definition.kind, ...p.common }));
    const router = createRouter({ providers: routed, communityProvider: config?.app.communityProvider ?? "" });
    // Without a license key mon runs as Community: say what that leaves out of this configuration.
    if (config && !config.license.key)
      for (const note of communityNotes(routed, config.app.communityProvider))
        problems.push({
          level: "warning",
          rule: "pro_only",
          key: note.key,
          message: note.message,
          ...(checked.file ? { file: checked.file } : {}),
          ...(checked.lineOf(note.key) ? { line: checked.lineOf(note.key) } : {}),
        });
    kept = [...router.active];
    inactive = [...router.inactive];
    if (router.warning)
      problems.push({
        level: "warning",
        rule: "provider_invalid",
        key: "app.communityProvider",
        message: router.warning,
        ...(checked.file ? { file: checked.file } : {}),
        ...(checked.lineOf("app.communityProvider") ? { line: checked.lineOf("app.communityProvider") } : {}),
      });
    // Only when alert: is really empty: a provider with a mistake is named by its own error, not this.
    if (checked.configured.length === 0)
      problems.push({
        level: "warning",
        rule: "no_provider",
        key: "alert",
        message: "no alert provider is configured under alert: incidents would be detected but delivered nowhere",
        ...(checked.file ? { file: checked.file } : {}),
      });
    if (options.check) {
      for (const p of built.providers) {
        if (!p.provider.check) {
          checks.push({ provider: p.definition.name, outcome: { kind: "unsupported" } });
          continue;
        }
        let outcome: Outcome;
        try {
          outcome = await p.provider.check(AbortSignal.timeout(10_000));
        } catch (error) {
          outcome = { kind: "retry", reason: (error as Error).message };
        }
        checks.push({ provider: p.definition.name, outcome });
        if (outcome.kind !== "ok") {
          const why = outcome.kind === "permanent" || outcome.kind === "retry" ? outcome.reason : "rate limited";
          problems.push({
            level: "error",
            rule: "provider_check_failed",
            key: `alert.${p.definition.name}`,
            message: `alert.${p.definition.name}: credential check failed (${why})`,
            ...(checked.file ? { file: checked.file } : {}),
          });
        }
      }
    }
  }
  const named = problems.map((p) => (shown && p.file === basename(shown) ? { ...p, file: shown } : p));
  const final = (
    options.strict ? named.map((p) => (STRICT.has(p.rule) ? { ...p, level: "error" as const } : p)) : named
  ).sort(byPlace);
  const errors = final.filter((p) => p.level === "error").length;
  return {
    ...(shown ? { file: shown } : {}),
    problems: final,
    providers: { kept, inactive },
    checks,
    errors,
    warnings: final.length - errors,
    exitCode: unreadable ? 2 : errors > 0 ? 1 : 0,
  };
}

/** What `--strict` turns from warnings into errors: keys and names that are probably mistakes (spec 2.1, 4.4). */
const STRICT: ReadonlySet<ConfigProblem["rule"]> = new Set([
  "unknown_key",
  "removed_key",
  "provider_unknown",
  "unknown_reason",
]);

/** Environment problems first, then the file's problems by line (those without a line after them). */
function byPlace(a: ConfigProblem, b: ConfigProblem): number {
  const rank = (p: ConfigProblem) => (p.rule === "invalid_env" ? -1 : (p.line ?? Number.MAX_SAFE_INTEGER));
  return rank(a) - rank(b);
}

/** The text report: one `file:line: level: message` line per problem, the checks, then a one-line summary. */
export function formatLintReport(report: LintReport): string {
  const lines = report.problems.map((p) => {
    const where = p.file
      ? `${p.file}${p.line ? `:${p.line}` : ""}`
      : p.rule === "invalid_env"
        ? "environment"
        : "(built-in defaults)";
    return `${where}: ${p.level}: ${p.message}`;
  });
  for (const c of report.checks)
    lines.push(
      `alert.${c.provider}: check: ${c.outcome.kind === "ok" ? "credentials accepted" : c.outcome.kind === "unsupported" ? "no side-effect-free check for this provider" : `failed: ${c.outcome.kind === "permanent" || c.outcome.kind === "retry" ? c.outcome.reason : "rate limited"}`}`,
    );
  const counts = `${report.errors} error${report.errors === 1 ? "" : "s"}, ${report.warnings} warning${report.warnings === 1 ? "" : "s"}`;
  const providers =
    report.exitCode !== 0
      ? "; not delivering: mon refuses to start with errors"
      : report.providers.kept.length
        ? `; delivering to ${report.providers.kept.join(", ")}${report.providers.inactive.length ? ` (inactive in Community: ${report.providers.inactive.join(", ")})` : ""}`
        : "";
  lines.push(
    `${report.file ?? "built-in defaults"}: ${report.exitCode === 0 ? "valid" : report.exitCode === 2 ? "could not be read" : "invalid"} (${counts})${providers}`,
  );
  return `${lines.join("\n")}\n`;
}
