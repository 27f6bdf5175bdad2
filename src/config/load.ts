import { X509Certificate } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import * as v from "valibot";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from "yaml";
import { describeSchema } from "./describe.ts";
import { readEnvironment, type RuntimeEnv } from "./env.ts";
import { ConfigError, type ConfigProblem } from "./errors.ts";
import { expandVariables, isFileReference, readCredential } from "./expand.ts";
import { ConfigSchema, DEPRECATED_IGNORE_LISTS, REMOVED_KEYS, type Config } from "./schema.ts";
import { issueMessage } from "./messages.ts";
import { suggestKey, unknownKeys } from "./unknown-keys.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** A loaded configuration: frozen values, the environment of spec 8, warnings to log once each, and where it came from. */
export interface LoadedConfig {
  readonly config: Config;
  readonly runtime: RuntimeEnv;
  readonly warnings: readonly ConfigProblem[];
  /** File name as shown in messages; absent when the built-in defaults run. */
  readonly file?: string;
  /** The CA bundle's PEM text when `app.caBundlePath` is set (read and checked at startup). */
  readonly caBundle?: string;
  /** 1-based line of a dotted key in the file, for problems found later (provider options). */
  lineOf(key: string): number | undefined;
}

/** Everything `mon lint` reports about one configuration; `config` is present when there is no error. */
export interface ConfigCheck {
  readonly problems: readonly ConfigProblem[];
  readonly config?: Config;
  readonly runtime: RuntimeEnv;
  readonly caBundle?: string;
  readonly file?: string;
  /** The `alert` section, expanded, when it is a map of maps (lint checks providers even when other keys are wrong). */
  readonly alert?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  lineOf(key: string): number | undefined;
}

/**
 * Loads the configuration as `mon run` does (spec 2.1, 5.3, 7.2, 8): CONFIG_FILE from `env` (or `path`),
 * YAML with line numbers, `${VAR}` expansion, `${file:}` credentials, unknown-key and removed-key warnings,
 * deprecated `ignore*` lists as silence rules, schema validation, the CA bundle, environment overrides.
 * No file → built-in defaults. Throws ConfigError with the first error (spec 7.2: refuse to start).
 */
export function loadConfig(options: { env: Env; path?: string }): LoadedConfig {
  const check = checkConfigSource(options);
  const error = check.problems.find((p) => p.level === "error");
  if (error || !check.config)
    throw new ConfigError(
      error ?? { level: "error", rule: "invalid_value", key: "", message: "invalid configuration" },
    );
  return {
    config: check.config,
    runtime: check.runtime,
    warnings: check.problems.filter((p) => p.level === "warning"),
    ...(check.file ? { file: check.file } : {}),
    ...(check.caBundle ? { caBundle: check.caBundle } : {}),
    lineOf: check.lineOf,
  };
}

/** Reads the file named by `path` or CONFIG_FILE and checks it; a missing or unreadable file is an error problem. */
export function checkConfigSource(options: { env: Env; path?: string }): ConfigCheck {
  const path = options.path ?? (options.env.CONFIG_FILE || undefined);
  if (!path) return checkConfig("", undefined, options.env);
  const fail = (rule: "file_missing" | "file_unreadable", message: string): ConfigCheck => ({
    problems: [{ level: "error", rule, key: options.path ? "" : "CONFIG_FILE", message, file: basename(path) }],
    runtime: readEnvironment(options.env).runtime,
    file: basename(path),
    lineOf: () => undefined,
  });
  if (!existsSync(path))
    return fail("file_missing", `${options.path ? "" : "CONFIG_FILE: "}configuration file ${path} does not exist`);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    return fail(
      "file_unreadable",
      `cannot read configuration file ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  return checkConfig(text, path, options.env);
}

/** Parses configuration text and returns every problem (see loadConfig); `file` names it in messages. */
export function parseConfig(text: string, file: string | undefined, env: Env): LoadedConfig {
  const check = checkConfig(text, file, env);
  const error = check.problems.find((p) => p.level === "error");
  if (error || !check.config)
    throw new ConfigError(
      error ?? { level: "error", rule: "invalid_value", key: "", message: "invalid configuration" },
    );
  return {
    config: check.config,
    runtime: check.runtime,
    warnings: check.problems.filter((p) => p.level === "warning"),
    ...(check.file ? { file: check.file } : {}),
    ...(check.caBundle ? { caBundle: check.caBundle } : {}),
    lineOf: check.lineOf,
  };
}

/** Checks configuration text and the environment; never throws for bad input. */
export function checkConfig(text: string, file: string | undefined, env: Env): ConfigCheck {
  const shown = file ? basename(file) : undefined;
  const { runtime, problems: envProblems } = readEnvironment(env);
  const problems: ConfigProblem[] = [...envProblems];
  const add = (p: Omit<ConfigProblem, "file" | "line">, line?: number) =>
    problems.push({ ...p, ...(shown ? { file: shown } : {}), ...(line ? { line } : {}) });

  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const keyLines = new Map<string, number>();
  const lineOf = (key: string) => keyLines.get(key);
  let alert: Record<string, Record<string, unknown>> | undefined;
  const done = (config?: Config, caBundle?: string): ConfigCheck => ({
    problems,
    runtime,
    ...(config ? { config } : {}),
    ...(caBundle ? { caBundle } : {}),
    ...(shown ? { file: shown } : {}),
    ...(alert ? { alert } : {}),
    lineOf,
  });
  const syntax = doc.errors[0];
  if (syntax) {
    add(
      { level: "error", rule: "yaml_syntax", key: "", message: syntax.message.split("\n")[0] ?? "invalid YAML" },
      syntax.linePos?.[0]?.line ?? lines.linePos(syntax.pos[0]).line,
    );
    return done();
  }
  collectLines(doc.contents as YamlNode | null, "", keyLines, lines);
  let raw: unknown;
  try {
    // Resolves aliases; an unresolved alias or an alias bomb (yaml's maxAliasCount) throws here.
    raw = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (error) {
    add(
      {
        level: "error",
        rule: "yaml_syntax",
        key: "",
        message: (error as Error).message.split("\n")[0] ?? "invalid YAML",
      },
      1,
    );
    return done();
  }
  if (!isRecord(raw)) {
    add(
      {
        level: "error",
        rule: "invalid_value",
        key: "",
        message: "the configuration must be a YAML mapping of keys to values",
      },
      1,
    );
    return done();
  }

  const rows = describeSchema(ConfigSchema);
  const sensitive = new Map(rows.filter((r) => r.meta.sensitive).map((r) => [r.key, r.meta.sensitive!]));
  const data = expandAll(raw, "", env, (key, message) =>
    add({ level: "error", rule: "unset_variable", key, message: `${key}: ${message}` }, lineOf(key)),
  ) as Record<string, unknown>;

  for (const [key, why] of Object.entries(REMOVED_KEYS)) {
    if (deleteKey(data, key))
      add({ level: "warning", rule: "removed_key", key, message: `${key} is ${why}` }, lineOf(key));
  }
  for (const key of unknownKeys(ConfigSchema, data)) {
    const hint = suggestKey(ConfigSchema, key);
    add(
      {
        level: "warning",
        rule: "unknown_key",
        key,
        message: `unknown key ${key}${hint ? ` (did you mean ${hint}?)` : ""}`,
      },
      lineOf(key),
    );
  }
  for (const [list, field] of Object.entries(DEPRECATED_IGNORE_LISTS)) {
    const values = data[list];
    if (!Array.isArray(values) || values.length === 0) continue;
    add(
      {
        level: "warning",
        rule: "deprecated_key",
        key: list,
        message: `${list} is deprecated; it is applied as one silence rule on ${field} (move it under silences)`,
      },
      lineOf(list),
    );
    data.silences = [...(Array.isArray(data.silences) ? data.silences : []), { [field]: values }];
  }
  for (const [key, kind] of sensitive) resolveSensitive(data, key, kind, (p) => add(p, lineOf(key)));
  const alertSection = data.alert ?? {};
  if (isRecord(alertSection) && Object.values(alertSection).every(isRecord))
    alert = alertSection as Record<string, Record<string, unknown>>;

  const result = v.safeParse(ConfigSchema, data);
  if (!result.success) {
    for (const issue of result.issues) {
      const key = v.getDotPath(issue) ?? "";
      const secret = [...sensitive].some(
        ([s, kind]) => kind !== "fileIfCredentials" && (key === s || key.startsWith(`${s}.`)),
      );
      add(
        {
          level: "error",
          rule: "invalid_value",
          key,
          message: `${key ? `${key}: ` : ""}${issueMessage(issue, secret)}`,
        },
        lineOf(key) ?? nearestLine(key, lineOf),
      );
    }
    return done();
  }
  const config = result.output;
  applyEnvironment(config, runtime);
  for (const row of rows) {
    if (row.meta.pro && hasKey(raw, row.key))
      add(
        {
          level: "warning",
          rule: "pro_only",
          key: row.key,
          message: `${row.key} is a Pro setting; it has no effect in Community (no license)`,
        },
        lineOf(row.key),
      );
  }
  if (config.healthCheck.statusEndpoint && !config.healthCheck.enabled) {
    add(
      {
        level: "warning",
        rule: "invalid_value",
        key: "healthCheck.statusEndpoint",
        message: "healthCheck.statusEndpoint needs healthCheck.enabled; /status is not served",
      },
      lineOf("healthCheck.statusEndpoint"),
    );
  }
  for (const [key, field] of [
    ["severityByReason", "severityByReason"],
    ["severityByOwnerKind", "severityByOwnerKind"],
  ] as const) {
    const map = config[field];
    if (map)
      (config as Record<string, unknown>)[key] = Object.fromEntries(
        Object.entries(map).map(([k, value]) => [k.toLowerCase(), value]),
      );
  }
  let caBundle: string | undefined;
  if (config.app.caBundlePath) {
    const checked = readCaBundle(config.app.caBundlePath);
    if (typeof checked === "string") caBundle = checked;
    else
      add(
        {
          level: "error",
          rule: "ca_bundle_invalid",
          key: "app.caBundlePath",
          message: `app.caBundlePath: ${checked.error}`,
        },
        lineOf("app.caBundlePath"),
      );
  }
  if (problems.some((p) => p.level === "error")) return done();
  return done(deepFreeze(config), caBundle);
}

// --- internal ---

function applyEnvironment(config: Config, runtime: RuntimeEnv): void {
  if (runtime.watchSecrets === false) config.watch.secrets = false;
  if (runtime.crdEnabled !== undefined) config.crd.enabled = runtime.crdEnabled;
  if (runtime.telemetry === false) config.telemetry.enabled = false;
  if (runtime.licenseKey) config.license.key = runtime.licenseKey;
  if (runtime.skipUpgradeCheck) config.upgrader.disableUpdateCheck = true;
}

function resolveSensitive(
  data: Record<string, unknown>,
  key: string,
  kind: "file" | "fileIfCredentials" | "secret",
  add: (p: Omit<ConfigProblem, "file" | "line">) => void,
): void {
  const parts = key.split(".");
  let parent: unknown = data;
  for (const part of parts.slice(0, -1)) parent = isRecord(parent) ? parent[part] : undefined;
  const last = parts[parts.length - 1] ?? "";
  if (!isRecord(parent) || typeof parent[last] !== "string") return;
  const value = parent[last] as string;
  if (kind === "secret") return;
  if (isFileReference(value)) {
    try {
      parent[last] = readCredential(value, key);
    } catch (error) {
      const e = error as ConfigError;
      add({
        level: "error",
        rule: e.rule ?? "credential_unreadable",
        key,
        message: `${key}: ${e.problem?.message ?? e.message}`,
      });
    }
    return;
  }
  if (kind === "file") {
    add({
      level: "error",
      rule: "credential_not_file_ref",
      key,
      message: `${key}: must be a \${file:/absolute/path} reference to a file mounted from a Secret`,
    });
    delete parent[last];
  } else if (/^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*@/i.test(value)) {
    add({
      level: "error",
      rule: "credential_not_file_ref",
      key,
      message: `${key}: a URL with credentials (${value.replace(/\/\/[^@/]*@/, "//***@")}) must be given as a \${file:/absolute/path} reference`,
    });
    delete parent[last];
  }
}

/** Reads and checks a PEM CA bundle: at least one certificate, each parseable. Returns the PEM text or why not. */
export function readCaBundle(path: string): string | { error: string } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    return { error: `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  }
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return { error: `${path} contains no PEM certificate` };
  for (const [i, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      return { error: `certificate ${i + 1} in ${path} cannot be parsed` };
    }
  }
  return text;
}

function collectLines(node: YamlNode | null, prefix: string, out: Map<string, number>, lines: LineCounter): void {
  if (!node) return;
  if (isMap(node)) {
    for (const pair of node.items) {
      const keyNode = pair.key as YamlNode | null;
      const name = isScalar(keyNode) ? String(keyNode.value) : "";
      const path = prefix ? `${prefix}.${name}` : name;
      const offset = keyNode?.range?.[0];
      if (offset !== undefined) out.set(path, lines.linePos(offset).line);
      collectLines(pair.value as YamlNode | null, path, out, lines);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      const offset = (item as YamlNode | null)?.range?.[0];
      if (offset !== undefined) out.set(`${prefix}.${i}`, lines.linePos(offset).line);
      collectLines(item as YamlNode, `${prefix}.${i}`, out, lines);
    });
  }
}

function nearestLine(key: string, lineOf: (key: string) => number | undefined): number | undefined {
  const parts = key.split(".");
  for (let n = parts.length - 1; n > 0; n--) {
    const line = lineOf(parts.slice(0, n).join("."));
    if (line) return line;
  }
  return undefined;
}

function expandAll(value: unknown, key: string, env: Env, fail: (key: string, message: string) => void): unknown {
  if (typeof value === "string") {
    try {
      return expandVariables(value, key, env);
    } catch (error) {
      fail(key, (error as ConfigError).problem?.message.replace(`${key}: `, "") ?? (error as Error).message);
      return value;
    }
  }
  if (Array.isArray(value)) return value.map((item, i) => expandAll(item, `${key}.${i}`, env, fail));
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(value)) out[k] = expandAll(item, key ? `${key}.${k}` : k, env, fail);
    return out;
  }
  return value;
}

function deleteKey(root: Record<string, unknown>, dotted: string): boolean {
  const parts = dotted.split(".");
  let node: unknown = root;
  for (const part of parts.slice(0, -1)) node = isRecord(node) ? node[part] : undefined;
  const last = parts[parts.length - 1] ?? "";
  if (!isRecord(node) || !(last in node)) return false;
  delete node[last];
  return true;
}

function hasKey(root: unknown, dotted: string): boolean {
  let node: unknown = root;
  for (const part of dotted.split(".")) {
    if (!isRecord(node) || !(part in node)) return false;
    node = node[part];
  }
  return true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
