import type { ProHintContext } from "../model/pro-hint.ts";
import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { LabelSelector } from "../model/label-selector.ts";
import { type MaintenanceAnnotations, maintenanceText, underMaintenance } from "./maintenance.ts";
import type { SeverityOverrides } from "../model/rules.ts";
import { inScope, type Scope } from "./scope.ts";
import { type PreparedSilence, prepareSilence, silenced, silencedBy } from "./silences.ts";

import type { SilenceRule } from "../model/rules.ts";

export type { SilenceRule } from "../model/rules.ts";

/**
 * What decides delivery besides the lifecycle: scope (spec 1.4, 2.1; scope.ts), silences (2.2; silences.ts),
 * maintenance (2.7; maintenance.ts). suppress.ts composes them.
 */
export interface DeliveryRules {
  readonly namespaces?: readonly string[];
  readonly namespaceSelector?: LabelSelector;
  readonly reasons?: readonly string[];
  readonly silences: readonly SilenceRule[];
  /** Where each silence rule is written (`config.yaml:12`), by index, for `mon explain`; `silences[i]` without. */
  readonly silenceSources?: readonly string[];
  /** Maintenance annotations honoured (a Pro setting: only in the Pro edition). */
  readonly maintenance?: MaintenanceAnnotations;
  /** `mon.io/ack` acknowledges incidents (Pro: only in the Pro edition). */
  readonly acknowledge?: boolean;
  /** Severity overrides (Pro: only in the Pro edition). */
  readonly severity?: SeverityOverrides;
  /** Reason (lower-cased) → runbook URL added to the next steps (spec 2.1 `runbooks`; Pro only). */
  readonly runbooks?: Readonly<Record<string, string>>;
}

/**
 * Delivery rules ready for the pass: reason lists lower-cased and pod name patterns compiled once, not for
 * every finding of every pass. Build with `prepareRules`.
 */
export interface PreparedRules extends DeliveryRules {
  /**
   * Community only, unless `app.hideProHints`: what Pro would add, for the one-line hint on messages (spec 2.1
   * app.hideProHints; notify/pro-hint.ts).
   */
  readonly proHints?: ProHintContext;
  readonly prepared: {
    readonly scope: Scope;
    readonly silences: readonly PreparedSilence[];
  };
}

/** Prepares delivery rules once (at startup or on reload). Throws SyntaxError on a pod name pattern that is not a regular expression (configuration validation rejects those first). */
export function prepareRules(rules: DeliveryRules): PreparedRules {
  const reasons = (rules.reasons ?? []).map((r) => r.toLowerCase());
  const exclude = reasons.length > 0 && reasons.every((r) => r.startsWith("!"));
  return {
    ...rules,
    prepared: {
      scope: {
        ...(rules.namespaces ? { namespaces: rules.namespaces } : {}),
        ...(rules.namespaceSelector ? { namespaceSelector: rules.namespaceSelector } : {}),
        ...(reasons.length
          ? { reasons: { exclude, listed: new Set(exclude ? reasons.map((r) => r.slice(1)) : reasons) } }
          : {}),
      },
      silences: rules.silences.map(prepareSilence),
    },
  };
}

/** Why a finding is not delivered, or undefined when it is. */
export type Suppression = "out_of_scope" | "silenced" | "maintenance";

/**
 * Decides whether one finding may be delivered (spec 1.4, 2.2, 2.7): in scope (`namespaces` include or `!`
 * exclude list, `namespaceSelector`, `reasons` include or exclude; cluster-scoped findings are outside an
 * include list of namespaces), not silenced (a rule matches when every field it sets matches; message
 * matchers search the summary and the evidence, Event messages included), and not held by a maintenance
 * annotation on the object or its namespace (truthy `true`/`1`/`yes`/`on`, bounded by an RFC 3339 `-until`).
 * Pure: `now` is epoch ms.
 */
export function suppressionOf(
  finding: Finding,
  inventory: InventoryView,
  rules: PreparedRules,
  now: number,
): Suppression | undefined {
  if (!inScope(finding, inventory, rules.prepared.scope)) return "out_of_scope";
  if (silenced(rules.prepared.silences, finding)) return "silenced";
  if (rules.maintenance && underMaintenance(finding, inventory, rules.maintenance, now)) return "maintenance";
  return undefined;
}

/**
 * `suppressionOf` for one pass, each finding decided once however many stages ask (correlate keeps held-back
 * workloads out of shared roots, hold marks and trims drafts). Pure: `now` is epoch ms.
 */
export function suppressionsOf(
  inventory: InventoryView,
  rules: PreparedRules,
  now: number,
): (finding: Finding) => Suppression | undefined {
  const decided = new Map<Finding, Suppression | undefined>();
  return (f) => {
    if (!decided.has(f)) decided.set(f, suppressionOf(f, inventory, rules, now));
    return decided.get(f);
  };
}

/** Why a finding is not delivered, in words for `mon explain`: which silence rule, scope or maintenance. */
export function suppressionText(
  finding: Finding,
  inventory: InventoryView,
  rules: PreparedRules,
  now: number,
): string | undefined {
  const why = suppressionOf(finding, inventory, rules, now);
  if (why === "out_of_scope") return "out of scope (namespaces, namespaceSelector or reasons)";
  if (why === "maintenance" && rules.maintenance)
    return `under maintenance: ${maintenanceText(finding, inventory, rules.maintenance, now) ?? "an annotation"}`;
  if (why !== "silenced") return undefined;
  const at = silencedBy(rules.prepared.silences, finding) ?? 0;
  return `silenced by ${rules.silenceSources?.[at] ?? `silences[${at}]`}`;
}

export { underMaintenance } from "./maintenance.ts";
