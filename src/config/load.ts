import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import * as v from "valibot";
import { checkAlert, type ProviderSchemas, type ProviderSettings } from "./alert.ts";
import { describeSchema } from "./describe.ts";
import { type RuntimeEnv, readEnvironment } from "./env.ts";
import { ConfigError, type ConfigProblem } from "./errors.ts";
import { issueMessage } from "./messages.ts";
import { mergeOverlays, type OverlaySource, overlayName, overlayProblems } from "./overlay.ts";
import { unknownReasonNames } from "./reasons.ts";
import {
  applyEnvironment,
  deepFreeze,
  deleteKey,
  expandAll,
  hasKey,
  lowerSeverityKeys,
  readCaBundle,
  resolveSensitive,
} from "./resolve.ts";
import { type Config, ConfigSchema, DEPRECATED_IGNORE_LISTS, REMOVED_KEYS } from "./schema.ts";
import { suggestKey, unknownKeys } from "./unknown-keys.ts";
import { nearestLine, readYaml } from "./yaml.ts";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * What the configuration is checked against besides its own schema: each provider's option schema (owned by
 * the provider, STYLE.md rule 2) and the catalogue's reason names. The composition root passes the product's
 * (config-domain.ts); config/ imports no stage.
 */
export interface ConfigDomain {
  readonly providers: ProviderSchemas;
  readonly reasons: readonly string[];
}

/** A loaded configuration: frozen values, the environment of spec 8, warnings to log once each, and where it came from. */
export interface LoadedConfig {
  readonly config: Config;
  /** The configured providers (`alert.<name>`), validated, credentials read, sorted by name. */
  readonly providers: readonly ProviderSettings[];
  readonly runtime: RuntimeEnv;
  readonly warnings: readonly ConfigProblem[];
  /** File name as shown in messages; absent when the built-in defaults run. */
  readonly file?: string;
  /** The CA bundle's PEM text when `app.caBundlePath` is set (read and checked at startup). */
  readonly caBundle?: string;
  /** 1-based line of a dotted key in the file, for problems found later (a provider that cannot be constructed). */
  lineOf(key: string): number | undefined;
  /** The MonConfig overlays merged over the file (spec 2.5), in name order; empty without any. */
  readonly overlays: readonly OverlaySource[];
  /**
   * The same file and environment with `overlays` merged over it instead (the overlay changed). Throws
   * ConfigError with the first problem, which names the MonConfig when the overlay is at fault.
   */
  withOverlays(overlays: readonly OverlaySource[]): LoadedConfig;
}

/**
 * Everything `mon lint` reports about one configuration. `config` is present when there is no error;
 * `providers` holds every provider that validated, even when other keys are wrong (lint constructs them).
 */
export interface ConfigCheck {
  readonly problems: readonly ConfigProblem[];
  readonly config?: Config;
  readonly providers: readonly ProviderSettings[];
  /** The provider names written under `alert:`, valid or not (none: the section is really empty). */
  readonly configured: readonly string[];
  readonly runtime: RuntimeEnv;
  readonly caBundle?: string;
  readonly file?: string;
  lineOf(key: string): number | undefined;
  readonly overlays: readonly OverlaySource[];
  /** The same check with `overlays` merged over the file instead. */
  withOverlays(overlays: readonly OverlaySource[]): ConfigCheck;
}

/**
 * Loads the configuration as `mon run` does (spec 2.1, 5.3, 7.2, 8): CONFIG_FILE from `env` (or `path`), then
 * the one pipeline of `checkConfig`. No file → built-in defaults. Throws ConfigError with the first error
 * (spec 7.2: refuse to start); warnings are returned to be logged once each.
 */
export function loadConfig(options: { env: Env; path?: string; domain: ConfigDomain }): LoadedConfig {
  return loaded(checkConfigSource(options));
}

/** Parses configuration text as `loadConfig` does (tests, the demo); `file` names it in messages. Throws ConfigError. */
export function parseConfig(text: string, file: string | undefined, env: Env, domain: ConfigDomain): LoadedConfig {
  return loaded(checkConfig(text, file, env, domain));
}

/** Reads the file named by `path` or CONFIG_FILE and checks it; a missing or unreadable file is an error problem. */
export function checkConfigSource(options: { env: Env; path?: string; domain: ConfigDomain }): ConfigCheck {
  const path = options.path ?? (options.env.CONFIG_FILE || undefined);
  if (!path) return checkConfig("", undefined, options.env, options.domain);
  const fail = (rule: "file_missing" | "file_unreadable", message: string): ConfigCheck => ({
    problems: [{ level: "error", rule, key: options.path ? "" : "CONFIG_FILE", message, file: basename(path) }],
    providers: [],
    configured: [],
    runtime: readEnvironment(options.env).runtime,
    file: basename(path),
    lineOf: () => undefined,
    overlays: [],
    withOverlays: () => fail(rule, message),
  });
  if (!existsSync(path)) {
    return fail("file_missing", `${options.path ? "" : "CONFIG_FILE: "}configuration file ${path} does not exist`);
  }
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    return fail("file_unreadable", `cannot read configuration file ${path} (${code})`);
  }
  return checkConfig(text, path, options.env, options.domain);
}

/**
 * The one configuration pipeline (STYLE.md rule 9), shared by `mon run` and `mon lint`; never throws for bad
 * input. read YAML (warnings are errors) → expand `${VAR}` → removed keys and unknown keys (warnings) →
 * deprecated aliases → `${file:}` credentials → `alert.*` against each provider's schema → the general schema
 * (defaults stated there once) → environment overrides, severity keys, CA bundle → reason names checked
 * against the catalogue → frozen.
 */
export function checkConfig(
  text: string,
  file: string | undefined,
  env: Env,
  domain: ConfigDomain,
  overlays: readonly OverlaySource[] = [],
): ConfigCheck {
  const shown = file ? basename(file) : undefined;
  const { runtime, problems: envProblems } = readEnvironment(env);
  const problems: ConfigProblem[] = [...envProblems];
  const yaml = readYaml(text);
  const { lineOf } = yaml;
  // One error per key: the first stage to refuse a value says why; later stages would only restate it less
  // exactly (a relative ${file:} reference is not also "not an absolute URL"). Likewise a line with a YAML
  // syntax error: what was recovered there is not judged again.
  const brokenLines = new Set(yaml.problems.filter((p) => p.rule === "yaml_syntax").map((p) => p.line));
  const add = (p: Omit<ConfigProblem, "file" | "line">, line = nearestLine(p.key, lineOf)) => {
    if (p.level === "error" && p.key && problems.some((q) => q.level === "error" && q.key === p.key)) return;
    if (p.rule !== "yaml_syntax" && line !== undefined && brokenLines.has(line)) return;
    problems.push({ ...p, ...(shown ? { file: shown } : {}), ...(line ? { line } : {}) });
  };
  let providers: ProviderSettings[] = [];
  const alert = (yaml.data as { alert?: unknown } | undefined)?.alert;
  const configured = alert && typeof alert === "object" && !Array.isArray(alert) ? Object.keys(alert) : [];
  const done = (config?: Config, caBundle?: string): ConfigCheck => ({
    problems,
    providers,
    configured,
    runtime,
    ...(config ? { config } : {}),
    ...(caBundle ? { caBundle } : {}),
    ...(shown ? { file: shown } : {}),
    lineOf,
    overlays,
    withOverlays: (next) => checkConfig(text, file, env, domain, next),
  });
  for (const p of yaml.problems) add(p, p.line);
  if (!yaml.data) return done();

  const rows = describeSchema(ConfigSchema);
  const sensitive = new Map(rows.filter((r) => r.meta.sensitive).map((r) => [r.key, r.meta.sensitive!]));
  const expanded = expandAll(yaml.data, "", env, (p) => add({ level: "error", ...p })) as Record<string, unknown>;
  // The overlay is merged after expansion: its values are taken literally (config/overlay.ts).
  const refused = overlayProblems(overlays);
  problems.push(...refused);
  const data = overlays.length && !refused.length ? mergeOverlays(expanded, overlays) : expanded;
  for (const o of overlays) {
    const watch = o.spec.watch as { secrets?: unknown } | undefined;
    if (runtime.watchSecrets !== false || watch?.secrets !== true) continue;
    const message =
      "spec.watch.secrets: MON_WATCH_SECRETS=false keeps Secrets unwatched; the overlay cannot turn them on";
    problems.push({ level: "warning", rule: "overlay_forbidden", key: "watch.secrets", message, file: overlayName(o) });
  }
  for (const [key, why] of Object.entries(REMOVED_KEYS)) {
    if (deleteKey(data, key)) add({ level: "warning", rule: "removed_key", key, message: `${key} is ${why}` });
  }
  // A silence with a key mon does not know is not applied: what it left out of its scope (`namespace:` for
  // `namespaces:`) would otherwise widen it to every namespace, and a silence must never hide more than it says.
  const unscoped = new Set<number>();
  for (const key of unknownKeys(ConfigSchema, data)) {
    const hint = suggestKey(ConfigSchema, key);
    const silence = /^silences\.(\d+)\./.exec(key);
    if (silence) unscoped.add(Number(silence[1]));
    const message = `unknown key ${key}${hint ? ` (did you mean ${hint}?)` : ""}${silence ? `; silence ${silence[1]} is not applied, so that it cannot silence more than it names` : ""}`;
    add({ level: "warning", rule: "unknown_key", key, message });
  }
  for (const [list, field] of Object.entries(DEPRECATED_IGNORE_LISTS)) {
    const values = data[list];
    if (!Array.isArray(values) || values.length === 0) continue;
    const message = `${list} is deprecated; it is applied as one silence rule on ${field} (move it under silences)`;
    add({ level: "warning", rule: "deprecated_key", key: list, message });
    data.silences = [...(Array.isArray(data.silences) ? data.silences : []), { [field]: values }];
  }
  // Keys whose value was read from a file: a credential, whatever the key's kind, never echoed in an error.
  const readFromFile = new Set<string>();
  for (const [key, kind] of sensitive) if (resolveSensitive(data, key, kind, (p) => add(p))) readFromFile.add(key);
  providers = checkAlert(data.alert, domain.providers, (level, rule, key, message) =>
    add({ level, rule, key, message }),
  );

  // Before the schema: a misspelt reason is reported even when another key is invalid.
  for (const { key, name, hint } of unknownReasonNames(data, providers, domain.reasons)) {
    const message = `${key}: no failure reason is named ${name}${hint ? ` (did you mean ${hint}?)` : ""}; it matches nothing`;
    add({ level: "warning", rule: "unknown_reason", key, message });
  }
  // alert was checked above, against each provider's own schema.
  const result = v.safeParse(ConfigSchema, { ...data, alert: undefined });
  if (!result.success) {
    for (const issue of result.issues) {
      const key = v.getDotPath(issue) ?? "";
      const secret = [...sensitive].some(
        ([s, kind]) => (kind !== "fileIfCredentials" || readFromFile.has(s)) && (key === s || key.startsWith(`${s}.`)),
      );
      const message = `${key ? `${key}: ` : ""}${issueMessage(issue, secret)}`;
      add({ level: "error", rule: "invalid_value", key, message });
    }
    return done();
  }
  const { alert: _checkedAbove, ...config } = result.output;
  if (unscoped.size) config.silences = config.silences.filter((_, i) => !unscoped.has(i));
  applyEnvironment(config, runtime);
  // With a key the license decides the edition at start (the daemon says so if Pro does not come).
  for (const row of config.license.key ? [] : rows) {
    if (!row.meta.pro || !hasKey(yaml.data, row.key)) continue;
    const message = row.meta.inCommunity
      ? `${row.key} is a Pro setting; in Community (no license) only this: ${row.meta.inCommunity}`
      : `${row.key} is a Pro setting; it has no effect in Community (no license)`;
    add({ level: "warning", rule: "pro_only", key: row.key, message });
  }
  if (config.healthCheck.statusEndpoint && !config.healthCheck.enabled) {
    const message = "healthCheck.statusEndpoint needs healthCheck.enabled; /status is not served";
    add({ level: "warning", rule: "invalid_value", key: "healthCheck.statusEndpoint", message });
  }
  if (config.heartbeatMonitor.enabled && !config.heartbeatMonitor.url) {
    const message =
      "heartbeatMonitor.enabled needs heartbeatMonitor.url (a ${file:/path} reference); no heartbeat is sent";
    add({ level: "warning", rule: "invalid_value", key: "heartbeatMonitor.enabled", message });
  }
  const diagnostics = config.healthCheck.diagnostics;
  if (diagnostics.enabled && !diagnostics.token) {
    const message = "healthCheck.diagnostics.enabled needs healthCheck.diagnostics.token (a ${file:/path} reference)";
    add({ level: "error", rule: "invalid_value", key: "healthCheck.diagnostics.token", message });
  }
  lowerSeverityKeys(config);
  let caBundle: string | undefined;
  if (config.app.caBundlePath) {
    const checked = readCaBundle(config.app.caBundlePath);
    if (typeof checked === "string") caBundle = checked;
    else {
      const message = `app.caBundlePath: ${checked.error}`;
      add({ level: "error", rule: "ca_bundle_invalid", key: "app.caBundlePath", message });
    }
  }
  if (problems.some((p) => p.level === "error")) return done();
  return done(deepFreeze(config), caBundle);
}

// --- internal ---

function loaded(check: ConfigCheck): LoadedConfig {
  const error = check.problems.find((p) => p.level === "error");
  if (error || !check.config) {
    throw new ConfigError(
      error ?? { level: "error", rule: "invalid_value", key: "", message: "invalid configuration" },
    );
  }
  return {
    config: check.config,
    providers: deepFreeze(check.providers),
    runtime: check.runtime,
    warnings: check.problems.filter((p) => p.level === "warning"),
    ...(check.file ? { file: check.file } : {}),
    ...(check.caBundle ? { caBundle: check.caBundle } : {}),
    lineOf: check.lineOf,
    overlays: check.overlays,
    withOverlays: (next) => loaded(check.withOverlays(next)),
  };
}
