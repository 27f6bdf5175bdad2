import type { Finding } from "../model/finding.ts";
import type { Incident } from "../model/incident.ts";
import type { InventoryView } from "../model/inventory.ts";
import { waitForCauses } from "./wait-for-cause.ts";

/** What the defer stage reads: the pass's time (epoch ms), what incidents already tell, and the log evidence. */
export interface DeferContext {
  readonly inventory: InventoryView;
  readonly now: number;
  /** The open incidents by id, as the last pass left them. */
  readonly incidents: ReadonlyMap<string, Incident>;
  /** The first pass after startup (spec 1.7): new findings do not wait for their log. */
  readonly baseline?: boolean;
  /** True while a new finding waits for its container's log; `attach` adds the log once read. */
  readonly evidence?: { pending(f: Finding): boolean; attach(f: Finding): Finding };
}

/** The findings of this pass that are due, and what still waits. */
export interface Deferred {
  /** Every finding after the cause wait (their `recheckAt`/`opensAt` are the pass's wake-ups). */
  readonly findings: readonly Finding[];
  /** Findings due now, with their log when it was read. */
  readonly due: readonly Finding[];
  /** Due findings still waiting for their log: the pass loop requests those reads after the pass. */
  readonly awaitingEvidence: readonly Finding[];
  /** Symptom findings waiting for the findings of the pods behind them. */
  readonly waitingSymptoms: number;
  /** Whether a finding waits for its log (a new one, outside the baseline). */
  waits(f: Finding): boolean;
}

/**
 * The defer stage of the pass (failure-catalogue 0.3): a finding whose hold has not passed yet is not open, it
 * only asks for a wake-up; a symptom waits for its cause (`waitForCauses`); a new finding waits for its log
 * the same way. A hold delays only the first opening: a finding already in an incident stays in it whatever
 * its hold, grace or wait says now, and a pod failing for a reason an announced incident already tells of a
 * sibling (same controller) is not held again — the message counts every pod failing that way when it is
 * sent, not only the first (issue 41, item 3). Pure.
 */
export function defer(findings: readonly Finding[], ctx: DeferContext): Deferred {
  const { inventory, now, evidence } = ctx;
  const told = new Set<string>();
  for (const incident of ctx.incidents.values()) for (const f of incident.findings) told.add(f.key);
  const { findings: waited, waiting } = waitForCauses(findings, inventory, now);
  // Built only when a finding is still in its hold, not on every pass.
  let sameTold: Set<string> | undefined;
  const opens = (f: Finding) =>
    f.opensAt === undefined ||
    f.opensAt <= now ||
    (!f.starting &&
      (told.has(f.key) ||
        (sameTold ??= toldByController(ctx.incidents.values(), inventory)).has(controllerKey(f, inventory) ?? "")));
  const waits = (f: Finding) => !told.has(f.key) && !ctx.baseline && (evidence?.pending(f) ?? false);
  const due: Finding[] = [];
  const awaitingEvidence: Finding[] = [];
  for (const f of waited) {
    if (!opens(f)) continue;
    if (waits(f)) awaitingEvidence.push(f);
    due.push(waits(f) || !evidence ? f : evidence.attach(f));
  }
  return { findings: waited, due, awaitingEvidence, waitingSymptoms: waiting, waits };
}

// --- internal ---

/** `reason|controller uid` of a pod finding: the same failure in a sibling pod. Undefined for other kinds. */
function controllerKey(f: Finding, inventory: InventoryView): string | undefined {
  if (f.object.kind !== "Pod") return undefined;
  const pod = inventory.get("Pod", f.object.namespace, f.object.name);
  const owner = pod?.metadata.ownerReferences?.find((r) => r.controller);
  return owner?.uid ? `${f.reason}|${owner.uid}` : undefined;
}

/** The `controllerKey`s of the pod findings of announced incidents. */
function toldByController(incidents: Iterable<Incident>, inventory: InventoryView): Set<string> {
  const out = new Set<string>();
  for (const incident of incidents) {
    if (incident.announcedAt === undefined) continue;
    for (const f of incident.findings) {
      const key = controllerKey(f, inventory);
      if (key) out.add(key);
    }
  }
  return out;
}
