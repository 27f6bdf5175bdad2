/** Rules a configuration can break (spec 7.2); closed list, used in messages and tests. */
export type ConfigRule =
  | "file_missing"
  | "yaml_syntax"
  | "invalid_value"
  | "unset_variable"
  | "credential_not_file_ref"
  | "credential_unreadable"
  | "provider_invalid"
  | "provider_unknown";

/**
 * A configuration problem that refuses startup (spec 7.2). `key` is the full dotted key path,
 * `line` the 1-based line in `file` when known. The message never contains a secret value.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    readonly rule: ConfigRule,
    readonly key: string,
    readonly detail: string,
    readonly file?: string,
    readonly line?: number,
  ) {
    super(`${where(file, line)}${key ? `${key}: ` : ""}${detail}`);
  }
}

/** A non-fatal configuration finding (unknown key, removed option); logged once each. */
export interface ConfigWarning {
  readonly key: string;
  readonly message: string;
  readonly file?: string;
  readonly line?: number;
}

/** Formats a warning as one log line: `config.yaml:14: unknown key alert.slack.webhok (did you mean webhook?)`. */
export function formatWarning(w: ConfigWarning): string {
  return `${where(w.file, w.line)}${w.message}`;
}

// --- internal ---

function where(file?: string, line?: number): string {
  if (!file) return "";
  return line ? `${file}:${line}: ` : `${file}: `;
}
