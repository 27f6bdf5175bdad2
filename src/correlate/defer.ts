import type { Finding } from "../model/finding.ts";
import type { Incident } from "../model/incident.ts";
import type { InventoryView } from "../model/inventory.ts";
import { refKey } from "../model/object-ref.ts";
import { type BaselineContext, presentAtStart } from "../model/baseline.ts";
import { errorLines } from "./shared-errors.ts";
import { SYMPTOM_WAIT_MAX_MS, waitForCauses } from "./wait-for-cause.ts";
import { workloadRoot } from "./workload-root.ts";

/** What the defer stage reads: the pass's time (epoch ms), what incidents already tell, and the log evidence. */
export interface DeferContext extends BaselineContext {
  readonly inventory: InventoryView;
  readonly now: number;
  /** The open incidents by id, as the last pass left them. */
  readonly incidents: ReadonlyMap<string, Incident>;
  // On the baseline pass, what is present at startup (model/baseline.ts) does not wait for its log.
  /** True while a new finding waits for its container's log; `attach` adds the log once read. */
  readonly evidence?: { pending(f: Finding): boolean; attach(f: Finding): Finding };
  /**
   * Causes gone (issue 52 item 6, incident/cause-gone.ts): the open incidents whose cause is gone, and by the
   * key of each workload (or bare pod) such a cause explained, the epoch ms from which its failures are judged
   * on their own.
   */
  readonly gone?: { readonly incidents: ReadonlySet<string>; readonly freedAt: ReadonlyMap<string, number> };
}

/** The findings of this pass that are due, and what still waits. */
export interface Deferred {
  /** Every finding after the cause wait (their `recheckAt`/`opensAt` are the pass's wake-ups). */
  readonly findings: readonly Finding[];
  /** Findings due now, with their log when it was read. */
  readonly due: readonly Finding[];
  /**
   * Due findings still waiting for their log, and held crash loops whose log a group wait reads: the pass loop
   * requests those reads after the pass.
   */
  readonly awaitingEvidence: readonly Finding[];
  /** Symptom findings waiting for the findings of the pods behind them. */
  readonly waitingSymptoms: number;
  /** Whether a finding waits for its log (a new one, outside the baseline), or for a group wait's reads. */
  waits(f: Finding): boolean;
}

/**
 * The defer stage of the pass (failure-catalogue 0.3): a finding whose hold has not passed yet is not open, it
 * only asks for a wake-up; a symptom waits for its cause (`waitForCauses`); a new finding waits for its log
 * the same way. A hold delays only the first opening: a finding already in an incident stays in it whatever
 * its hold, grace or wait says now, and a pod failing for a reason an announced incident already tells of a
 * sibling (same controller), or a sibling due in the same pass fails for, is not held again — the message counts
 * every pod failing that way when it is sent, not only the first (issue 41, item 3), whichever pod's kubelet
 * wrote its status first. A failure a cause explained whose cause has just gone (a node Ready
 * again) is judged from the cause's resolve, not from its own onset: its hold starts again then (issue 52, item
 * 6), so a replacement pod still starting as its node's incident resolves is not told and resolved seconds
 * later. Pure.
 */
export function defer(findings: readonly Finding[], ctx: DeferContext): Deferred {
  const { inventory, now, evidence } = ctx;
  const told = new Set<string>();
  // What an incident whose cause is gone told is not told any more: a finding of it that stays is a new failure.
  const standing = [...ctx.incidents.values()].filter((i) => !ctx.gone?.incidents.has(i.id));
  for (const incident of standing) for (const f of incident.findings) told.add(f.key);
  const freedAt = ctx.gone?.freedAt;
  const judged = freedAt?.size ? findings.map((f) => judgedFromFreeing(f, freedAt, inventory)) : findings;
  const { findings: waited, waiting } = waitForCauses(judged, inventory, now);
  const opens = (f: Finding) => f.opensAt === undefined || f.opensAt <= now || (!f.starting && told.has(f.key));
  const reads = (f: Finding) => !told.has(f.key) && !presentAtStart([f.object], ctx) && (evidence?.pending(f) ?? false);
  const due: Finding[] = [];
  const awaitingEvidence: Finding[] = [];
  let held: Finding[] = [];
  const admit = (f: Finding) => {
    if (reads(f)) awaitingEvidence.push(f);
    due.push(reads(f) || !evidence ? f : evidence.attach(f));
  };
  for (const f of waited) {
    if (opens(f)) admit(f);
    else held.push(f);
  }
  // A pod failing for the reason a sibling fails for — told in an announced incident, or due now — is no passing
  // failure either: it opens with it, so a message counts every pod of the workload failing that way, whichever
  // kubelet wrote first. The siblings' keys are built only when a pod is still in its hold, not on every pass.
  if (held.some((f) => !f.starting && f.object.kind === "Pod")) {
    const siblings = controllerKeys(
      [...standing.filter((i) => i.announcedAt !== undefined).flatMap((i) => i.findings), ...due],
      inventory,
    );
    const stays: Finding[] = [];
    for (const f of held)
      if (!f.starting && siblings.has(controllerKey(f, inventory) ?? "")) admit(f);
      else stays.push(f);
    held = stays;
  }
  const partners = evidence
    ? groupPartners(due, held, { ...ctx, evidence }, (f) => !told.has(f.key) && !presentAtStart([f.object], ctx), reads)
    : undefined;
  if (!partners) return { findings: waited, due, awaitingEvidence, waitingSymptoms: waiting, waits: reads };
  const grouping = new Set(partners.waiting.map((f) => f.key));
  return {
    findings: waited,
    due: [...due, ...partners.joining],
    awaitingEvidence: [...awaitingEvidence, ...partners.reading],
    waitingSymptoms: waiting,
    waits: (f) => reads(f) || grouping.has(f.key),
  };
}

/** How far apart two crash loops may have begun and still be read as one error's: a shared cause hits at once, ms. */
export const GROUP_WINDOW_MS = 5 * 60_000;

/**
 * A group wait for a shared error (spec 1.3; Alertmanager's `group_wait`): workloads failing with one error begin
 * crash-looping together, but each opens at its own third restart and its log is read apart, so the first one's
 * would be told alone. A new due finding that wrote an error line waits (`waiting`; correlate holds its draft as a
 * whole, whatever it is rooted at) while a crash of another workload begun within GROUP_WINDOW_MS of it has its log
 * read — a due one's is already asked for; one still in its hold is read for it (`reading`) — at most LOG_WAIT_MS a
 * read. A held crash loop whose log has a line a due finding shares opens with it (`joining`): the same specific
 * error elsewhere confirms it is no passing crash. Undefined when nothing waits.
 */
function groupPartners(
  due: readonly Finding[],
  held: readonly Finding[],
  ctx: DeferContext & { evidence: NonNullable<DeferContext["evidence"]> },
  isNew: (f: Finding) => boolean,
  reads: (f: Finding) => boolean,
): { reading: Finding[]; waiting: Finding[]; joining: Finding[] } | undefined {
  const inHold = held.filter((f) => f.reason === "CrashLoopBackOff" && f.object.kind === "Pod" && isNew(f));
  const partners = [...inHold, ...due.filter(reads)];
  if (partners.length === 0) return undefined;
  const { inventory, evidence } = ctx;
  const workloadOf = (f: Finding) => refKey(workloadRoot(f, inventory));
  // Each candidate's workload and lines, once: every partner is held against every candidate.
  const candidates = due
    .filter((f) => f.object.kind === "Pod" && isNew(f) && !reads(f))
    .map((f) => ({ finding: f, workload: workloadOf(f), lines: errorLines(f) }))
    .filter((c) => c.lines.size > 0);
  if (candidates.length === 0) return undefined;
  const reading: Finding[] = [];
  const joining: Finding[] = [];
  const waiting = new Set<Finding>();
  for (let i = 0; i < partners.length; i++) {
    const partner = partners[i] as Finding;
    const workload = workloadOf(partner);
    const near = candidates.filter(
      (c) => c.workload !== workload && Math.abs(c.finding.since - partner.since) <= GROUP_WINDOW_MS,
    );
    if (near.length === 0) continue;
    if (evidence.pending(partner)) {
      // A due partner's read is asked for already.
      if (i < inHold.length) reading.push(partner);
      for (const c of near) waiting.add(c.finding);
      continue;
    }
    const read = evidence.attach(partner);
    const lines = errorLines(read);
    if (near.some((c) => [...c.lines.keys()].some((line) => lines.has(line)))) {
      const { opensAt: _held, ...opened } = read;
      joining.push(opened);
    }
  }
  return reading.length || joining.length || waiting.size ? { reading, waiting: [...waiting], joining } : undefined;
}

// --- internal ---

/**
 * `f` with its hold counted from when its workload's cause was gone (`freedAt`), if that is later; a symptom
 * without a hold of its own (a rollout past its deadline while its pods could not run) waits as a symptom waits
 * for its pods.
 */
function judgedFromFreeing(f: Finding, freedAt: ReadonlyMap<string, number>, inventory: InventoryView): Finding {
  const hold = f.holdMs || (f.symptom ? SYMPTOM_WAIT_MAX_MS : 0);
  if (!hold) return f;
  const at = Math.max(
    freedAt.get(refKey(f.object)) ?? 0,
    f.object.kind === "Pod" ? (freedAt.get(refKey(workloadRoot(f, inventory))) ?? 0) : 0,
  );
  const opensAt = at + hold;
  return opensAt > (f.opensAt ?? f.since + hold) ? { ...f, opensAt } : f;
}

/** `reason|controller uid` of a pod finding: the same failure in a sibling pod. Undefined for other kinds. */
function controllerKey(f: Finding, inventory: InventoryView): string | undefined {
  if (f.object.kind !== "Pod") return undefined;
  const pod = inventory.get("Pod", f.object.namespace, f.object.name);
  const owner = pod?.metadata.ownerReferences?.find((r) => r.controller);
  return owner?.uid ? `${f.reason}|${owner.uid}` : undefined;
}

/** The `controllerKey`s of pod findings. */
function controllerKeys(findings: readonly Finding[], inventory: InventoryView): Set<string> {
  const out = new Set<string>();
  for (const f of findings) {
    const key = controllerKey(f, inventory);
    if (key) out.add(key);
  }
  return out;
}
