import { readFileSync } from "node:fs";
import { ConfigError } from "./errors.ts";

const VAR = /\$(\$?)\{([^}]*)\}/g;
const FILE_REF = /^\$\{file:(\/[^}]+)\}$/;

/**
 * Expands `${VAR}` in one string value from `env` (spec 2.1). `$${X}` stays the literal `${X}`;
 * `${file:...}` is left for `readCredential`. Throws ConfigError `unset_variable` naming the key.
 */
export function expandVariables(value: string, key: string, env: Readonly<Record<string, string | undefined>>): string {
  return value.replace(VAR, (whole, escaped: string, name: string) => {
    if (escaped) return whole.slice(1);
    if (name.startsWith("file:")) return whole;
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

/**
 * Reads a credential given as `${file:/absolute/path}` (spec 5.3); the file's content with one trailing
 * newline removed. Throws ConfigError naming the key and path, never the content.
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
  try {
    return readFileSync(match[1], "utf8").replace(/\r?\n$/, "");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new ConfigError({
      level: "error",
      rule: "credential_unreadable",
      key,
      message: `${key}: cannot read ${match[1]} (${code})`,
    });
  }
}
