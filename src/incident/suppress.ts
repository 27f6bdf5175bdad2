import type { ProHintContext } from "../model/pro-hint.ts";
import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { Annotated } from "../model/kube.ts";
import { selects, type LabelSelector } from "../model/label-selector.ts";
import type { SeverityOverrides } from "./overrides.ts";

import type { SilenceRule } from "../model/rules.ts";

export type { SilenceRule } from "../model/rules.ts";

/** What decides delivery besides the lifecycle: scope (spec 1.4, 2.1), silences (2.2), maintenance (2.7). */
export interface DeliveryRules {
  readonly namespaces?: readonly string[];
  readonly namespaceSelector?: LabelSelector;
  readonly reasons?: readonly string[];
  readonly silences: readonly SilenceRule[];
  /** Maintenance annotations honoured (a Pro setting: only in the Pro edition). */
  readonly maintenance?: { readonly annotation: string; readonly untilAnnotation: string };
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
    readonly reasons?: { readonly exclude: boolean; readonly listed: ReadonlySet<string> };
    readonly silences: readonly PreparedSilence[];
  };
}

interface PreparedSilence extends SilenceRule {
  readonly lowerReasons?: ReadonlySet<string>;
  readonly podNames?: readonly RegExp[];
}

/** Prepares delivery rules once (at startup or on reload). Throws SyntaxError on a pod name pattern that is not a regular expression (configuration validation rejects those first). */
export function prepareRules(rules: DeliveryRules): PreparedRules {
  const reasons = (rules.reasons ?? []).map((r) => r.toLowerCase());
  const exclude = reasons.length > 0 && reasons.every((r) => r.startsWith("!"));
  return {
    ...rules,
    prepared: {
      ...(reasons.length
        ? { reasons: { exclude, listed: new Set(exclude ? reasons.map((r) => r.slice(1)) : reasons) } }
        : {}),
      silences: rules.silences.map((rule) => ({
        ...rule,
        ...(rule.reasons?.length ? { lowerReasons: new Set(rule.reasons.map((r) => r.toLowerCase())) } : {}),
        ...(rule.podNamePatterns?.length ? { podNames: rule.podNamePatterns.map((p) => new RegExp(p)) } : {}),
      })),
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
  if (!inScope(finding, inventory, rules)) return "out_of_scope";
  if (rules.prepared.silences.length > 0) {
    const text = [finding.summary, ...finding.evidence.map((e) => e.value)].join("\n");
    if (rules.prepared.silences.some((rule) => silences(rule, finding, text))) return "silenced";
  }
  if (rules.maintenance && underMaintenance(finding, inventory, rules.maintenance, now)) return "maintenance";
  return undefined;
}

// --- internal ---

function inScope(f: Finding, inventory: InventoryView, rules: PreparedRules): boolean {
  const ns = f.object.namespace;
  const list = rules.namespaces ?? [];
  if (list.length > 0) {
    const exclude = list.every((n) => n.startsWith("!"));
    if (exclude ? ns !== undefined && list.includes(`!${ns}`) : ns === undefined || !list.includes(ns)) return false;
  }
  if (rules.namespaceSelector) {
    if (ns === undefined) return false;
    const labels = (inventory.get("Namespace", undefined, ns)?.metadata?.labels ?? {}) as Record<string, string>;
    if (!selects(rules.namespaceSelector, labels)) return false;
  }
  const reasons = rules.prepared.reasons;
  if (reasons && reasons.listed.has(f.reason.toLowerCase()) === reasons.exclude) return false;
  return true;
}

function silences(rule: PreparedSilence, f: Finding, text: string): boolean {
  const checks: (boolean | undefined)[] = [
    rule.namespaces?.length
      ? f.object.namespace !== undefined && rule.namespaces.includes(f.object.namespace)
      : undefined,
    rule.lowerReasons ? rule.lowerReasons.has(f.reason.toLowerCase()) : undefined,
    rule.podNames ? f.object.kind === "Pod" && rule.podNames.some((p) => p.test(f.object.name)) : undefined,
    rule.containerNames?.length
      ? f.container !== undefined && rule.containerNames.includes(f.container.replace(/ \(init\)$/, ""))
      : undefined,
    rule.containerMessages?.length
      ? f.container !== undefined && rule.containerMessages.some((m) => text.includes(m))
      : undefined,
    rule.eventMessages?.length
      ? f.evidence.some((e) => e.label === "event") && rule.eventMessages.some((m) => text.includes(m))
      : undefined,
    rule.nodeReasons?.length
      ? f.object.kind === "Node" && rule.nodeReasons.some((r) => text.includes(r) || f.reason === r)
      : undefined,
    rule.nodeMessages?.length ? f.object.kind === "Node" && rule.nodeMessages.some((m) => text.includes(m)) : undefined,
  ];
  const set = checks.filter((c) => c !== undefined);
  return set.length > 0 && set.every(Boolean);
}

const TRUTHY = new Set(["true", "1", "yes", "on"]);

/** True when the finding's object or its namespace carries a live maintenance annotation (spec 2.7). Pure. */
export function underMaintenance(
  f: Finding,
  inventory: InventoryView,
  m: NonNullable<DeliveryRules["maintenance"]>,
  now: number,
): boolean {
  const object = inventory.get(f.object.kind, f.object.namespace, f.object.name);
  const namespace = f.object.namespace ? inventory.get("Namespace", undefined, f.object.namespace) : undefined;
  return [object, namespace].some((o) => held(o, m, now));
}

function held(o: Annotated | undefined, m: NonNullable<DeliveryRules["maintenance"]>, now: number): boolean {
  const annotations = o?.metadata?.annotations ?? {};
  if (
    !TRUTHY.has(
      String(annotations[m.annotation] ?? "")
        .trim()
        .toLowerCase(),
    )
  )
    return false;
  const until = annotations[m.untilAnnotation];
  if (until === undefined) return true;
  const end = Date.parse(until);
  // An invalid -until is ignored: the hold stands without a bound (spec 2.7).
  return Number.isNaN(end) || now < end;
}
