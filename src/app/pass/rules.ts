import type { LoadedConfig } from "../../config/load.ts";
import type { Config } from "../../config/schema.ts";
import { severityOverrides } from "../../detect/overrides.ts";
import { type PreparedRules, prepareRules } from "../../incident/suppress.ts";
import type { Edition } from "../../model/edition.ts";

/**
 * What the pass holds back or rates differently (spec 2.1, 2.2, 3.1): scope (namespaces, selector, reasons) and
 * silences in every edition; maintenance, acknowledgement and severity overrides in Pro only; in Community the
 * context of the one-line Pro hint (`inactiveProviders`: configured providers Community does not deliver to),
 * unless `app.hideProHints`.
 */
export function rulesFor(
  config: Config,
  edition: Edition,
  inactiveProviders: readonly string[] = [],
  silenceSources?: readonly string[],
): PreparedRules {
  const pro = edition === "pro";
  const rules = prepareRules({
    ...(config.namespaces ? { namespaces: config.namespaces } : {}),
    ...(config.namespaceSelector ? { namespaceSelector: config.namespaceSelector } : {}),
    ...(config.reasons ? { reasons: config.reasons } : {}),
    silences: config.silences,
    ...(silenceSources ? { silenceSources } : {}),
    ...(pro && config.maintenance.enabled ? { maintenance: config.maintenance } : {}),
    ...(pro
      ? { acknowledge: true, severity: severityOverrides(config.severityByReason, config.severityByOwnerKind) }
      : {}),
    ...(pro && config.runbooks
      ? { runbooks: Object.fromEntries(Object.entries(config.runbooks).map(([k, v]) => [k.toLowerCase(), v])) }
      : {}),
  });
  if (pro || config.app.hideProHints) return rules;
  // Community: each message says in one line what Pro would add to it.
  return {
    ...rules,
    proHints: {
      inactiveProviders,
      maintenance: config.maintenance,
      severityReasons: new Set(Object.keys(config.severityByReason ?? {}).map((r) => r.toLowerCase())),
    },
  };
}

/** Where each silence rule is written, by index (`config.yaml:12`; `silences[i]` without a file or line), for `mon explain`. */
export function silenceSources(loaded: Pick<LoadedConfig, "config" | "file" | "lineOf">): string[] {
  return loaded.config.silences.map((_, i) => {
    const line = loaded.lineOf(`silences.${i}`);
    return loaded.file && line ? `${loaded.file}:${line}` : `silences[${i}]`;
  });
}
