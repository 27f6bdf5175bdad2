import { causesOf, type Finding } from "../model/finding.ts";
import type { Incident, IncidentDraft } from "../model/incident.ts";
import type { InventoryView } from "../model/inventory.ts";
import { type ObjectRef, refKey } from "../model/object-ref.ts";
import { groupFindings } from "./group.ts";
import { foldHeartbeatGap } from "./heartbeat-gap.ts";
import { foldNamespaceOutages } from "./namespace-outage.ts";

/** What the correlate stage reads: the Inventory, the open incidents by id, and which findings wait for a log. */
export interface CorrelateContext {
  readonly inventory: InventoryView;
  readonly incidents: ReadonlyMap<string, Incident>;
  waits(f: Finding): boolean;
  /**
   * The objects with a finding (due or held) in this process's baseline pass — in that pass, every object with
   * one: their failures have no known onset (issue 52 item 1).
   */
  readonly failingAtStart?: ReadonlySet<string>;
  /** Whether a finding is held back (silenced, out of scope, under maintenance): it joins no shared root. */
  readonly suppressed?: (f: Finding) => boolean;
}

/**
 * The correlate stage of the pass (spec 1.4, docs/incidents.md): findings become incident drafts, one per
 * root cause (`groupFindings`), nodes lost together into one (`foldHeartbeatGap`), namespace-wide failures
 * into one (`foldNamespaceOutages`), and cause
 * comes before symptom also while a log is read (`deferForEvidence`). Pure.
 */
export function correlate(due: readonly Finding[], ctx: CorrelateContext): IncidentDraft[] {
  const isOpen = (id: string) => ctx.incidents.has(id);
  // A finding another root's incident holds (a symptom folded into its node's), by its key.
  const holders = new Map<string, ObjectRef>();
  for (const incident of ctx.incidents.values())
    for (const f of incident.findings) if (refKey(f.object) !== incident.id) holders.set(f.key, incident.root);
  const suppressed = ctx.suppressed;
  const quiet = suppressed ? (d: IncidentDraft) => causesOf(d.findings).every(suppressed) : () => false;
  const grouped = foldNamespaceOutages(
    foldHeartbeatGap(
      groupFindings(due, ctx.inventory, isOpen, quiet, (key) => holders.get(key)),
      isOpen,
    ),
    ctx.inventory,
    isOpen,
    ctx.failingAtStart,
    quiet,
  );
  return deferForEvidence(grouped, ctx.waits, isOpen);
}

/**
 * Cause before symptom also while a log is read: a new incident whose findings include one still waiting for
 * its container's log waits as a whole (a Service joined to a crash is not told before the crash it joins);
 * in an open incident only the waiting finding waits, unless it is all there is (the incident goes on).
 */
function deferForEvidence(
  drafts: readonly IncidentDraft[],
  waits: (f: Finding) => boolean,
  isOpen: (id: string) => boolean,
): IncidentDraft[] {
  const out: IncidentDraft[] = [];
  for (const d of drafts) {
    if (!d.findings.some(waits)) out.push(d);
    else if (isOpen(refKey(d.root))) {
      const ready = d.findings.filter((f) => !waits(f));
      out.push(ready.length ? { ...d, findings: ready } : d);
    }
  }
  return out;
}
