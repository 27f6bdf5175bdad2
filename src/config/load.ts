import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import * as v from "valibot";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from "yaml";
import { ConfigError, type ConfigWarning } from "./errors.ts";
import { expandVariables } from "./expand.ts";
import { ConfigSchema, REMOVED_KEYS, type Config } from "./schema.ts";
import { suggestKey, unknownKeys } from "./unknown-keys.ts";

/** A loaded configuration: the frozen values, the warnings to log once each, and where it came from. */
export interface LoadedConfig {
  readonly config: Config;
  readonly warnings: readonly ConfigWarning[];
  /** Path of the file, absent when the built-in defaults run. */
  readonly file?: string;
  /** 1-based line of a dotted key in the file, for messages about values validated later (provider options). */
  lineOf(key: string): number | undefined;
}

/**
 * Loads the configuration as `mon run` and `mon lint` both do (spec 2.1, 5.3): `CONFIG_FILE` from `env`
 * (or `path`), YAML with line numbers, `${VAR}` expansion, unknown-key warnings, schema validation.
 * No file configured → built-in defaults. Throws ConfigError (spec 7.2) for every startup failure.
 */
export function loadConfig(options: { env: Readonly<Record<string, string | undefined>>; path?: string }): LoadedConfig {
  const path = options.path ?? (options.env.CONFIG_FILE || undefined);
  if (!path) return parseConfig("", undefined, options.env);
  if (!existsSync(path)) throw new ConfigError("file_missing", "CONFIG_FILE", `configuration file ${path} does not exist`);
  return parseConfig(readFileSync(path, "utf8"), path, options.env);
}

/** Parses configuration text; `file` names it in messages. See loadConfig for the rules. */
export function parseConfig(text: string, file: string | undefined, env: Readonly<Record<string, string | undefined>>): LoadedConfig {
  const shown = file ? basename(file) : undefined;
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const syntax = doc.errors[0];
  if (syntax) {
    const line = syntax.linePos?.[0]?.line ?? lines.linePos(syntax.pos[0]).line;
    throw new ConfigError("yaml_syntax", "", syntax.message.split("\n")[0] ?? "invalid YAML", shown, line);
  }
  const keyLines = new Map<string, number>();
  collectLines(doc.contents as YamlNode | null, "", keyLines, lines);
  const lineOf = (key: string) => keyLines.get(key);

  const raw = (doc.toJS() ?? {}) as unknown;
  if (!isRecord(raw)) throw new ConfigError("invalid_value", "", "the configuration must be a YAML mapping", shown, 1);
  const expanded = expandAll(raw, "", env, shown, lineOf) as Record<string, unknown>;

  const warnings: ConfigWarning[] = [];
  for (const [key, why] of Object.entries(REMOVED_KEYS)) {
    if (deleteKey(expanded, key)) warnings.push({ key, message: `${key} is ${why}`, file: shown, line: lineOf(key) });
  }
  for (const key of unknownKeys(ConfigSchema, expanded)) {
    const hint = suggestKey(ConfigSchema, key);
    warnings.push({ key, message: `unknown key ${key}${hint ? ` (did you mean ${hint}?)` : ""}`, file: shown, line: lineOf(key) });
  }

  const result = v.safeParse(ConfigSchema, expanded);
  if (!result.success) {
    const issue = result.issues[0];
    const key = v.getDotPath(issue) ?? "";
    throw new ConfigError("invalid_value", key, describeIssue(issue), shown, lineOf(key));
  }
  return { config: deepFreeze(result.output), warnings, file: shown, lineOf };
}

// --- internal ---

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
    node.items.forEach((item, i) => collectLines(item as YamlNode, `${prefix}.${i}`, out, lines));
  }
}

function expandAll(
  value: unknown,
  key: string,
  env: Readonly<Record<string, string | undefined>>,
  file: string | undefined,
  lineOf: (key: string) => number | undefined,
): unknown {
  if (typeof value === "string") {
    try {
      return expandVariables(value, key, env);
    } catch (error) {
      if (error instanceof ConfigError) throw new ConfigError(error.rule, error.key, error.detail, file, lineOf(key));
      throw error;
    }
  }
  if (Array.isArray(value)) return value.map((item, i) => expandAll(item, `${key}.${i}`, env, file, lineOf));
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(value)) out[k] = expandAll(item, key ? `${key}.${k}` : k, env, file, lineOf);
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

function describeIssue(issue: v.BaseIssue<unknown>): string {
  const received = issue.received && !/^"/.test(issue.received) ? issue.received : issue.received;
  return `${issue.message.replace(/^Invalid (type|value): /, "")}${received && !issue.message.includes(received) ? ` (got ${received})` : ""}`;
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
