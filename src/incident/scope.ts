import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";
import { selects, type LabelSelector } from "../model/label-selector.ts";

/** What scopes delivery (spec 1.4, 2.1): namespaces (an include or `!` exclude list), a namespace selector, reasons. */
export interface Scope {
  readonly namespaces?: readonly string[];
  readonly namespaceSelector?: LabelSelector;
  /** Reasons lower-cased, an include or exclude list (prepared once by suppress.ts prepareRules). */
  readonly reasons?: { readonly exclude: boolean; readonly listed: ReadonlySet<string> };
}

/**
 * True when a finding is in scope (spec 1.4, 2.1): its namespace is in the include list or not in the exclude
 * list (a cluster-scoped finding is outside an include list), its namespace's labels match the selector, and
 * its reason is listed (or not excluded). Pure.
 */
export function inScope(f: Finding, inventory: InventoryView, rules: Scope): boolean {
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
  const reasons = rules.reasons;
  if (reasons && reasons.listed.has(f.reason.toLowerCase()) === reasons.exclude) return false;
  return true;
}
