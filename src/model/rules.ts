import type { Tier } from "./severity.ts";

/**
 * One route of a provider (spec 2.4, Pro): every field it sets must match. Declared once (issue 31.4): the
 * configuration schema (config/schema.ts `RouteSchema`) is checked against it by the compiler.
 */
export interface Route {
  readonly namespaces?: readonly string[];
  readonly severities?: readonly Tier[];
  readonly reasons?: readonly string[];
  readonly owners?: readonly string[];
}

/**
 * A silence rule (spec 2.2): every field it sets must match. Declared once (issue 31.4): the configuration
 * schema (config/schema.ts `SilenceRuleSchema`) is checked against it by the compiler.
 */
export interface SilenceRule {
  readonly namespaces?: readonly string[];
  readonly reasons?: readonly string[];
  readonly podNamePatterns?: readonly string[];
  readonly containerNames?: readonly string[];
  readonly containerMessages?: readonly string[];
  readonly eventMessages?: readonly string[];
  readonly nodeReasons?: readonly string[];
  readonly nodeMessages?: readonly string[];
}

/** Severity overrides (spec 2.1 `severityByReason`, `severityByOwnerKind`; Pro), keys lower-cased. */
export interface SeverityOverrides {
  readonly byReason: ReadonlyMap<string, Tier>;
  readonly byOwnerKind: ReadonlyMap<string, Tier>;
}
