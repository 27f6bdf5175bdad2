import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import type { RuntimeEnv } from "./env.ts";
import type { ConfigError, ConfigProblem } from "./errors.ts";
import { expandVariables, isFileReference, readCredential } from "./expand.ts";
import type { Config } from "./schema.ts";

/**
 * The small resolvers of the configuration pipeline (STYLE.md rule 9), each one job, run by `checkConfig` in
 * order: expand `${VAR}`, drop removed keys, turn deprecated aliases into silences, read `${file:}`
 * credentials, apply the environment (spec 8), lower-case severity keys, read the CA bundle.
 */

type Env = Readonly<Record<string, string | undefined>>;

/**
 * `${VAR}` expanded in every string (spec 2.1); each unset variable, or `${file:}` reference with a relative
 * path, is reported through `fail` (its rule and full message) and left as is.
 */
export function expandAll(
  value: unknown,
  key: string,
  env: Env,
  fail: (problem: Pick<ConfigProblem, "rule" | "key" | "message">) => void,
): unknown {
  if (typeof value === "string") {
    try {
      return expandVariables(value, key, env);
    } catch (error) {
      const problem = (error as ConfigError).problem;
      fail(problem ?? { rule: "unset_variable", key, message: `${key}: ${(error as Error).message}` });
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

/** Environment overrides of spec 8 (MON_WATCH_SECRETS, MON_CRD_ENABLED, MON_TELEMETRY, MON_LICENSE_KEY, SKIP_UPGRADE_CHECK). */
export function applyEnvironment(config: Config, runtime: RuntimeEnv): void {
  if (runtime.watchSecrets === false) config.watch.secrets = false;
  if (runtime.crdEnabled !== undefined) config.crd.enabled = runtime.crdEnabled;
  if (runtime.telemetry === false) config.telemetry.enabled = false;
  if (runtime.licenseKey) config.license.key = runtime.licenseKey;
  if (runtime.skipUpgradeCheck) config.upgrader.disableUpdateCheck = true;
}

/**
 * Reads the `${file:}` credential of one sensitive general key (spec 2.1: heartbeat URL, proxy with
 * credentials); an inline value where only a reference is accepted is an error and is removed. True when
 * the value was read from a file: an error about it must not quote it.
 */
export function resolveSensitive(
  data: Record<string, unknown>,
  key: string,
  kind: "file" | "fileIfCredentials" | "secret",
  add: (p: Omit<ConfigProblem, "file" | "line">) => void,
): boolean {
  const parts = key.split(".");
  let parent: unknown = data;
  for (const part of parts.slice(0, -1)) parent = isRecord(parent) ? parent[part] : undefined;
  const last = parts[parts.length - 1] ?? "";
  if (!isRecord(parent) || typeof parent[last] !== "string") return false;
  const value = parent[last] as string;
  if (kind === "secret") return false;
  if (isFileReference(value)) {
    try {
      parent[last] = readCredential(value, key);
      return true;
    } catch (error) {
      const e = error as ConfigError;
      add({
        level: "error",
        rule: e.rule ?? "credential_unreadable",
        key,
        message: `${key}: ${e.problem?.message ?? e.message}`,
      });
    }
    return false;
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
  return false;
}

/** severityByReason and severityByOwnerKind keys compare case-insensitively: stored lower-case. */
export function lowerSeverityKeys(config: Config): void {
  for (const key of ["severityByReason", "severityByOwnerKind"] as const) {
    const map = config[key];
    if (map) config[key] = Object.fromEntries(Object.entries(map).map(([k, value]) => [k.toLowerCase(), value]));
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

/** Removes a dotted key; true when it was there. */
export function deleteKey(root: Record<string, unknown>, dotted: string): boolean {
  const parts = dotted.split(".");
  let node: unknown = root;
  for (const part of parts.slice(0, -1)) node = isRecord(node) ? node[part] : undefined;
  const last = parts[parts.length - 1] ?? "";
  if (!isRecord(node) || !(last in node)) return false;
  delete node[last];
  return true;
}

/** True when the dotted key is present. */
export function hasKey(root: unknown, dotted: string): boolean {
  let node: unknown = root;
  for (const part of dotted.split(".")) {
    if (!isRecord(node) || !(part in node)) return false;
    node = node[part];
  }
  return true;
}

/** Freezes a value and everything in it. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

// --- internal ---

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
