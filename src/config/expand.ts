import { readFileSync, statSync } from "node:fs";
import { ConfigError } from "./errors.ts";

const VAR = /\$(\$?)\{([^}]*)\}/g;
const FILE_REF = /^\$\{file:(\/[^}]+)\}$/;

/**
 * Expands `${VAR}` in one string value from `env` (spec 2.1). `$${X}` stays the literal `${X}`;
 * `${file:/...}` is left for `readCredential`. Throws ConfigError naming the key: `unset_variable`, or
 * `credential_not_file_ref` for a `${file:}` reference with a relative path (spec 2.1: absolute only).
 */
export function expandVariables(value: string, key: string, env: Readonly<Record<string, string | undefined>>): string {
  return value.replace(VAR, (whole, escaped: string, name: string) => {
    if (escaped) return whole.slice(1);
    if (name.startsWith("file:")) {
      const path = name.slice("file:".length);
      if (!path.startsWith("/"))
        throw new ConfigError({
          level: "error",
          rule: "credential_not_file_ref",
          key,
          message: `${key}: \${file:${path}} is a relative path; a \${file:} reference takes an absolute path, such as \${file:/etc/mon/secrets/${path.replace(/^\.?\//, "") || "name"}} (the file mounted from a Secret)`,
        });
      return whole;
    }
    const found = env[name];
    if (found === undefined)
      throw new ConfigError({
        level: "error",
        rule: "unset_variable",
        key,
        message: `${key}: references \${${name}}, which is not set`,
      });
    return found;
  });
}

/** True when `value` is exactly one absolute `${file:/path}` reference, the only accepted form for credentials (spec 2.4, 5.3). */
export function isFileReference(value: string): boolean {
  return FILE_REF.test(value);
}

/** Largest credential file read through `${file:}`, bytes. */
export const MAX_CREDENTIAL_BYTES = 64 * 1024;

/**
 * Reads a credential given as `${file:/absolute/path}` (spec 5.3); the file's content with one trailing
 * newline removed. Only a regular file of at most 64 KiB is read (not a device, FIFO or directory). Throws
 * ConfigError naming the key and path, never the content.
 */
export function readCredential(value: string, key: string): string {
  const match = FILE_REF.exec(value);
  if (!match?.[1]) {
    throw new ConfigError({
      level: "error",
      rule: "credential_not_file_ref",
      key,
      message: `${key}: credentials must be given as \${file:/absolute/path} (a file mounted from a Secret)`,
    });
  }
  const path = match[1];
  const refuse = (why: string) =>
    new ConfigError({ level: "error", rule: "credential_unreadable", key, message: `${key}: ${path} ${why}` });
  try {
    // Only a regular file of bounded size: /dev/zero would exhaust memory, a FIFO would hang startup.
    const stat = statSync(path);
    if (!stat.isFile()) throw refuse("is not a regular file (a credential is a file mounted from a Secret)");
    if (stat.size > MAX_CREDENTIAL_BYTES)
      throw refuse(`is larger than ${MAX_CREDENTIAL_BYTES / 1024} KiB, too large for a credential`);
    return readFileSync(path, "utf8").replace(/\r?\n$/, "");
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new ConfigError({
      level: "error",
      rule: "credential_unreadable",
      key,
      message: `${key}: cannot read ${match[1]} (${code})`,
    });
  }
}
