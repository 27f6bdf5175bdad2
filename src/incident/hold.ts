import { causesOf, explanatoryDepth, type Finding } from "../model/finding.ts";
import type { IncidentDraft } from "../model/incident.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { ObjectRef } from "../model/object-ref.ts";
import { redact } from "../redact/redact.ts";
import { ackOf } from "./ack.ts";
import type { LifecycleState } from "./lifecycle.ts";
import { absorbRecoveryTraffic } from "./recovery.ts";
import { type PreparedRules, type Suppression, suppressionsOf } from "./suppress.ts";

/** What the hold stage reads: the Inventory, the pass's time (epoch ms), the state and the delivery rules. */
export interface HoldContext {
  readonly inventory: InventoryView;
  readonly now: number;
  readonly state: LifecycleState;
  readonly rules?: PreparedRules;
  /** Each finding's suppression this pass, when the pass already decided it (correlate asked first). */
  readonly suppression?: (f: Finding) => Suppression | undefined;
}

/** The drafts left, marked `held` or `ack`, and by incident id the roots each recovering incident absorbed. */
export interface Held {
  readonly drafts: readonly IncidentDraft[];
  readonly absorbed: ReadonlyMap<string, readonly ObjectRef[]>;
}

/**
 * The hold stage of the pass (spec 1.4, 2.2, 2.7): what a recovering incident told, and symptoms on what it
 * named, are its recovery, not new problems (absorbed); a draft is `held` when every cause in it — every
 * finding that is not a symptom of the others (a workload with no available replica, a Service without ready
 * endpoints), or every finding when all are symptoms — is out of scope, silenced or under maintenance: a
 * symptom never carries out what its silenced cause would have told (issue 41), and silencing a symptom never
 * hides a root cause that still affects others; a draft that is told loses its silenced findings — a silenced
 * node reboot is not told as the root of the crash loops beside it — and is named by what is left;
 * `mon.io/ack` marks it acknowledged when the rules acknowledge (Pro). Pure.
 */
export function hold(drafts: readonly IncidentDraft[], ctx: HoldContext): Held {
  const { inventory, rules, now } = ctx;
  const traffic = absorbRecoveryTraffic(drafts, ctx.state.incidents.values(), inventory);
  // Each finding's suppression, decided once: it holds the draft, then takes silenced findings out of it.
  const suppressed = rules ? (ctx.suppression ?? suppressionsOf(inventory, rules, now)) : () => undefined;
  const marked = traffic.drafts.map((draft) => {
    const held = rules !== undefined && causesOf(draft.findings).every((f) => suppressed(f) !== undefined);
    // Told, it carries no silenced finding: what a silence matches never reaches a provider by another finding.
    const d = held || rules === undefined ? draft : withoutSilenced(draft, (f) => suppressed(f) === "silenced");
    const ack = rules?.acknowledge ? ackOf(d.root, d.findings, inventory, (text) => redact(text).text) : undefined;
    return held || ack ? { ...d, ...(held ? { held } : {}), ...(ack ? { ack } : {}) } : d;
  });
  return { drafts: marked, absorbed: traffic.absorbed };
}

// --- internal ---

/** `draft` without the findings a silence matches, named by its most explanatory finding left when its own was. */
function withoutSilenced(draft: IncidentDraft, silenced: (f: Finding) => boolean): IncidentDraft {
  const kept = draft.findings.filter((f) => !silenced(f));
  if (kept.length === draft.findings.length || kept.length === 0) return draft;
  const named = kept.some((f) => f.reason === draft.rootReason);
  const rootReason = named
    ? draft.rootReason
    : [...kept].sort((a, b) => explanatoryDepth(a) - explanatoryDepth(b) || a.key.localeCompare(b.key))[0]!.reason;
  return { ...draft, rootReason, findings: kept };
}
