/** Rules a configuration can break (spec 2.1, 7.2); closed list, used in messages, lint output and tests. */
export type ConfigRule =
  | "file_missing"
  | "file_unreadable"
  | "yaml_syntax"
  | "invalid_value"
  | "unset_variable"
  | "credential_not_file_ref"
  | "credential_unreadable"
  | "ca_bundle_invalid"
  | "invalid_env"
  | "provider_invalid"
  | "provider_unknown"
  | "provider_check_failed"
  | "unknown_key"
  | "unknown_reason"
  | "removed_key"
  | "deprecated_key"
  | "pro_only"
  | "no_provider"
  | "overlay_forbidden";

/** One problem found in the configuration or environment: an error refuses startup, a warning is logged once. */
export interface ConfigProblem {
  readonly level: "error" | "warning";
  readonly rule: ConfigRule;
  /** Full dotted key path (`alert.slack.webhook`) or environment variable name. */
  readonly key: string;
  /** The message without location; never contains a secret value. */
  readonly message: string;
  readonly file?: string;
  /** 1-based line in `file`. */
  readonly line?: number;
}

/**
 * A configuration problem that refuses startup (spec 7.2), thrown by `loadConfig`. Its message is one line:
 * `file:line: message` naming the key, the value (never a secret) and the rule.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly rule: ConfigRule;
  readonly key: string;
  readonly file?: string;
  readonly line?: number;
  constructor(readonly problem: ConfigProblem) {
    super(formatProblem(problem));
    this.rule = problem.rule;
    this.key = problem.key;
    this.file = problem.file;
    this.line = problem.line;
  }
}

/** Formats a problem as one log line: `config.yaml:14: unknown key alert.slack.webhok (did you mean webhook?)`. */
export function formatProblem(p: ConfigProblem): string {
  const where = p.file ? (p.line ? `${p.file}:${p.line}: ` : `${p.file}: `) : "";
  return `${where}${p.message}`;
}
