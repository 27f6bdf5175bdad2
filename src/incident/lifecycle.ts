import type { Decision, Skip } from "../model/decision.ts";
import { presentAtStart } from "../model/baseline.ts";
import { explanatoryDepth, type Finding, isSymptom } from "../model/finding.ts";
import type { Incident, IncidentDraft } from "../model/incident.ts";
import { type ObjectRef, refKey, refLabel } from "../model/object-ref.ts";
import { describeFact, incidentFacts } from "./facts.ts";
import { dedupKey, incidentTier } from "./tiers.ts";
import { forget, judgeRecurrence, remember, type Recurrence } from "./memory.ts";
import { ackPresentAtOpen, stepAck, type AckState } from "./ack.ts";
import { RECOVERY_WAIT_MS, type Recovery } from "./recovery.ts";
import { isOwnCause } from "./cause-gone.ts";

/**
 * A roll-up (spec 6): two or more incidents announced in one pass, told in one message. It stays open until
 * every incident it names has resolved; then one closing message follows it.
 */
export interface RollUp {
  /** `roll-up@<epoch ms>`: the conversation id of the roll-up message. */
  readonly id: string;
  /** Epoch ms of the pass that rolled them up. */
  readonly openedAt: number;
  /** Incident ids it names. */
  readonly covers: readonly string[];
  /** Incident ids still open. */
  readonly open: readonly string[];
}

/** Seconds between low-priority digests (spec 6): 30 minutes. */
export const DIGEST_INTERVAL_SECONDS = 1800;

/**
 * The low-priority digest being gathered (spec 6): tier `normal` incidents opened or resolved since the last
 * one. `dueAt` (epoch ms) is set when the first entry arrives, one interval later.
 */
export interface Digest {
  readonly opened: readonly Incident[];
  readonly resolved: readonly Incident[];
  readonly dueAt?: number;
}

/**
 * Seconds after an incident's last message during which further routine news waits (spec 1.7 cooldown), as
 * Alertmanager's `group_interval`: what became true meanwhile goes out in one update when it ends. Escalation
 * to the page tier, acknowledgement changes and resolves never wait.
 */
export const UPDATE_COOLDOWN_SECONDS = 300;

/**
 * Seconds a resolved incident is remembered (the repage window, spec 3.1; failure-catalogue 0.3): a root that
 * fails again within it reopens the same incident — same id and dedup key, revision counting on, still
 * acknowledged — and its announcement says how soon it came back.
 */
export const REPAGE_WINDOW_SECONDS = 1800;

/** What is kept of a resolved incident for the repage window. */
export interface Resolved {
  /** Epoch ms of the resolve. */
  readonly resolvedAt: number;
  readonly revision: number;
  readonly ack?: AckState["ack"];
  /**
   * The would-be incidents it had folded in (`KeptIncident.folds`), when its root's own finding was a cause
   * (`isOwnCause`): that cause is gone, and their failures are judged from the resolve (issue 52 item 6).
   */
  readonly folds?: readonly string[];
}

/** Seconds an announced incident stays open before one 'still open' update (spec 3.1), and again each such period: a week. */
export const STILL_OPEN_SECONDS = 7 * 24 * 3600;

/**
 * The page reminder (spec 3.1): a paging incident nobody acknowledged is reminded of in its thread after 30
 * minutes without a message, then after 1, 2 and 4 hours, then every 4 hours; `mon.io/ack` (Pro) stops the
 * reminders, its removal resumes them. Seconds of quiet before reminder n (0-based).
 */
export function pageReminderSeconds(n: number): number {
  return Math.min(30 * 60 * 2 ** n, 4 * 3600);
}

/** Seconds of quiet before the next reminder of `incident`: the page reminder while it pages, else a week. */
function reminderSeconds(incident: Pick<KeptIncident, "mode" | "pageReminders">): number {
  return incident.mode === "page" ? pageReminderSeconds(incident.pageReminders ?? 0) : STILL_OPEN_SECONDS;
}

/**
 * An incident as the lifecycle keeps it: `announced` once told on its own; `digested` once listed in a
 * digest; `recurring` when it is there because it was told twice within a day (spec 1.8); `remindedAt`
 * (epoch ms) when the last 'still open' update went out; `ack`/`ackAtOpen` the acknowledgement (Pro, `ack.ts`);
 * `spokeAt` (epoch ms) its last message of its own; `coolsAt` (epoch ms) when news held by the cooldown goes
 * out; `folds` the keys of would-be incidents already recorded as folded into it; `baseline` a low-priority
 * problem present at startup, kept quiet unless it gets worse.
 */
export type KeptIncident = Incident &
  AckState & {
    readonly announced: boolean;
    readonly digested?: boolean;
    readonly recurring?: boolean;
    readonly remindedAt?: number;
    /** Page reminders sent since the incident last stopped paging or was acknowledged (the cadence's step). */
    readonly pageReminders?: number;
    readonly spokeAt?: number;
    readonly coolsAt?: number;
    readonly folds?: readonly string[];
    readonly baseline?: boolean;
    /**
     * A cause (a finding that is not a symptom) was part of what it told: from then on the symptoms that
     * follow from it (a workload without replicas, a rollout past its deadline) are never news, also while
     * the cause itself has gone and they clear.
     */
    readonly causeTold?: boolean;
    /** Id of the larger incident this conversation's findings are now part of (folding is never a resolve). */
    readonly absorbedInto?: string;
    /**
     * Epoch ms since which its findings are gone while its root does not show recovery yet: it resolves when
     * the root does, or RECOVERY_WAIT_MS later; a finding coming back meanwhile continues the conversation.
     */
    readonly recovering?: number;
  };

/** Epoch ms of the next 'still open' update or end of a cooldown any open incident is due, for the pass to wake up then. */
export function nextReminderAt(state: LifecycleState): number | undefined {
  let next: number | undefined;
  for (const i of state.incidents.values()) {
    if (!i.announced) continue;
    const remind = (i.remindedAt ?? i.openedAt) + reminderSeconds(i) * 1000;
    let at = i.coolsAt !== undefined && i.coolsAt < remind ? i.coolsAt : remind;
    if (i.recovering !== undefined) at = Math.min(at, i.recovering + RECOVERY_WAIT_MS);
    if (next === undefined || at < next) next = at;
  }
  return next;
}

/** Lifecycle state between passes: open incidents by id (plus those held, never announced), open roll-ups, the digest being gathered. */
export interface LifecycleState {
  readonly incidents: ReadonlyMap<string, KeptIncident>;
  readonly rollUps: ReadonlyMap<string, RollUp>;
  readonly digest: Digest;
  /** Announcements of the last day per incident id (spec 1.8). */
  readonly memory: ReadonlyMap<string, Recurrence>;
  /** Incidents resolved within the repage window, by id. */
  readonly recent: ReadonlyMap<string, Resolved>;
}

/** An empty lifecycle state (a fresh start). */
export function emptyLifecycle(): LifecycleState {
  return {
    incidents: new Map(),
    rollUps: new Map(),
    digest: { opened: [], resolved: [] },
    memory: new Map(),
    recent: new Map(),
  };
}

/** What one lifecycle step decided: incident decisions, plus the roll-up opened and those closed in this pass. */
export interface LifecycleStep {
  readonly decisions: Decision[];
  /** Decisions that send nothing, for the audit (spec 6). */
  readonly skipped: Skip[];
  readonly state: LifecycleState;
  readonly rollUp?: RollUp;
  readonly closedRollUps: readonly RollUp[];
  /** The low-priority digest that fell due in this pass, to be sent now. */
  readonly digest?: Digest;
}

/**
 * One lifecycle step (spec 3.1): compares this pass's drafts with the open incidents and decides.
 * - a new root with an in-scope finding → `announce`; a held one (out of scope, silenced) → nothing;
 * - a new root at tier `normal` → `announce` with `delivery: "digest"`: listed in the next low-priority digest;
 * - an announced incident where a new fact is true → `update` with the news; otherwise nothing is sent;
 * - a held incident that gets worse (its tier leaves `normal`) → `announce` at once;
 * - an open incident with no draft → `resolve` (a held one resolves silently; one in the digest is listed
 *   in the next digest as resolved, `delivery: "digest"`) once `options.recovery` says its root and what it
 *   named are back; until then it waits silently, at most RECOVERY_WAIT_MS (`recovering`), and a draft coming
 *   back meanwhile continues it as if it had never gone;
 * - an announced incident with no message for a week → one 'still open' `update`, then again each quiet week,
 *   unless acknowledged; `mon.io/ack` added or removed → one `update` saying so (Pro, `ack.ts`);
 * - a root told twice within a day that opens again → the digest, or once an announcement stating its
 *   rhythm when it recurs at steady intervals (spec 1.8, `memory.ts`); page-tier incidents always page;
 * - news within `UPDATE_COOLDOWN_SECONDS` of the incident's last message waits and goes out in one update when
 *   the cooldown ends (skip `cooldown`); escalation to the page tier and acknowledgement changes never wait;
 * - a root resolved less than `REPAGE_WINDOW_SECONDS` ago reopens the same incident (revision, dedup key and
 *   acknowledgement kept) and its announcement says how soon it came back;
 * - each would-be incident a draft folds in (node inhibition, cascading suppression, mass failure) is
 *   recorded once in `skipped`.
 * The digest falls due `DIGEST_INTERVAL_SECONDS` after its first entry and is returned in `digest`.
 * On the baseline pass (the first after startup, spec 1.7) announcements carry `delivery: "startup summary"`:
 * the problems already present are told in one summary, and later news about them updates as usual.
 * Low-priority (tier `normal`) problems already present are skipped (`baseline`): kept quiet until they get
 * worse, and resolved silently.
 * Otherwise two or more announcements in one pass carry `delivery: "roll-up"` and open a roll-up (spec 6),
 * which closes in the pass its last incident resolves.
 * Pure: `now` is epoch ms; returns the decisions and the next state.
 */
export function stepLifecycle(
  state: LifecycleState,
  drafts: readonly IncidentDraft[],
  now: number,
  cluster: string,
  options: {
    baseline?: boolean;
    /** On a warm takeover, the objects failing when the caches first synced (model/baseline.ts). */
    failingAtSync?: ReadonlySet<string>;
    /** Whether an incident's root shows recovery (incident/recovery.ts); every incident counts as recovered without it. */
    recovery?: (incident: KeptIncident) => Recovery;
    /** Recovery traffic each recovering incident absorbed this pass, by id (`absorbRecoveryTraffic`): it is not back yet. */
    absorbed?: ReadonlyMap<string, readonly ObjectRef[]>;
  } = {},
): LifecycleStep {
  const next = new Map(state.incidents);
  const decisions: Decision[] = [];
  const seen = new Set<string>();
  let opened = [...state.digest.opened];
  const memory = forget(state.memory, now);
  const resolved = [...state.digest.resolved];
  const skipped: Skip[] = [];
  const recent = new Map<string, Resolved>();
  for (const [id, r] of state.recent) if (now - r.resolvedAt < REPAGE_WINDOW_SECONDS * 1000) recent.set(id, r);
  // Each would-be incident folded into this one is recorded once (spec 6 audit `skipped`).
  const recordFolds = (
    incident: Incident,
    draft: IncidentDraft,
    before: readonly string[] = [],
  ): readonly string[] | undefined => {
    if (!draft.folded?.length) return before.length ? before : undefined;
    const known = new Set(before);
    for (const f of draft.folded) {
      const key = refKey(f.root);
      if (known.has(key)) continue;
      known.add(key);
      skipped.push({ reason: f.reason, incident, subject: f.root, at: now });
    }
    return [...known];
  };

  for (const draft of drafts) {
    const id = refKey(draft.root);
    seen.add(id);
    const { tier, mode, pageRule } = incidentTier(draft.findings);
    const facts = incidentFacts(draft.findings, mode);
    const previous = next.get(id);
    // Summed up on the baseline pass only when present at startup (model/baseline.ts).
    const atStart = presentAtStart(
      draft.findings.map((f) => f.object),
      options,
    );
    const base = {
      id,
      root: draft.root,
      // Named by its most explanatory finding, and once told only renamed by a more explanatory one: what is
      // left while a failure clears does not rename it ("Was blamed on … (InitContainerFailed)", not
      // "(WorkloadUnavailable)"; a Job's exit codes, not "(JobFailed)" when its pods went first).
      rootReason: previous ? keptName(previous, draft) : draft.rootReason,
      tier,
      mode,
      ...(pageRule ? { pageRule } : {}),
      findings: draft.findings,
      ...(draft.affected ? { affected: draft.affected } : {}),
      onsetAt: Math.min(previous?.onsetAt ?? now, now, ...draft.findings.map((f) => f.since)),
      phase: "open" as const,
      dedupKey: dedupKey(cluster, draft.root, mode === "page" ? "page" : "notify"),
    };
    if (!previous?.announced) {
      if (draft.held) {
        next.set(id, {
          ...base,
          openedAt: previous?.openedAt ?? now,
          told: [],
          revision: previous?.revision ?? 0,
          announced: false,
          ...(previous?.digested ? { digested: true } : {}),
          ...(previous?.recurring ? { recurring: true } : {}),
          ...(previous?.baseline ? { baseline: true } : {}),
        });
        continue;
      }
      // A low-priority problem already there at startup is not news (spec 1.7): kept quiet unless it gets worse.
      if (mode === "digest" && (atStart || previous?.baseline)) {
        const incident = {
          ...base,
          openedAt: previous?.openedAt ?? now,
          told: facts,
          revision: previous?.revision ?? 0,
        };
        if (!previous) skipped.push({ reason: "baseline", incident, subject: draft.root, at: now });
        next.set(id, { ...incident, announced: false, baseline: true });
        continue;
      }
      const back = !previous ? recent.get(id) : undefined;
      if (back) recent.delete(id);
      const revision = previous?.revision ?? back?.revision ?? 0;
      // Recurrences told twice within a day go to the digest too (spec 1.8); page-tier ones still page.
      const recurring = previous?.digested === true && previous.recurring === true && mode !== "page";
      const judged = !previous && mode === "notify" && !atStart ? judgeRecurrence(memory.get(id), now) : undefined;
      if (mode === "digest" || recurring || judged?.verdict === "digest") {
        const keep = recurring || judged?.verdict === "digest" ? { recurring: true } : {};
        if (previous?.digested) {
          const { recovering: _recovering, ...before } = previous;
          next.set(id, {
            ...before,
            ...base,
            openedAt: previous.openedAt,
            told: previous.told,
            revision: previous.revision,
            announced: false,
            digested: true,
            ...keep,
          });
          continue;
        }
        const incident = {
          ...base,
          openedAt: previous?.openedAt ?? now,
          announcedAt: now,
          told: facts,
          revision: revision + 1,
        };
        next.set(id, { ...incident, announced: false, digested: true, ...keep });
        opened.push(incident);
        if (judged) memory.set(id, remember(memory.get(id), now));
        decisions.push({ action: "announce", incident, news: [], at: now, delivery: "digest" });
        continue;
      }
      // Worse than `normal` now: told on its own at once, and no longer listed as opened in the digest.
      if (previous?.digested) opened = opened.filter((i) => i.id !== id);
      // Back within the repage window: the same incident, still acknowledged if the annotation stayed (spec 3.1).
      const kept = back?.ack && draft.ack ? stepAck({ ack: back.ack }, draft.ack) : undefined;
      const present = !kept && draft.ack ? ackPresentAtOpen(draft.ack) : undefined;
      const incident = {
        ...base,
        openedAt: previous?.openedAt ?? now,
        announcedAt: now,
        told: facts,
        revision: revision + 1,
        announced: true,
        spokeAt: now,
        ...(hasCause(draft.findings) ? { causeTold: true } : {}),
        ...(kept ? kept.state : present?.state),
      };
      const folds = recordFolds(incident, draft);
      next.set(id, { ...incident, ...(folds ? { folds } : {}) });
      const stated = judged?.verdict === "state";
      memory.set(id, remember(memory.get(id), now, stated));
      const news = [
        ...(back
          ? [
              `failing again ${Math.max(1, Math.round((now - back.resolvedAt) / 60_000))} minutes after it resolved${kept?.state.ack && kept.news.length === 0 ? "; still acknowledged" : ""}`,
            ]
          : []),
        ...(stated
          ? [
              `recurring: fails every ${Math.max(1, Math.round(judged.everySeconds / 60))} minutes; further recurrences go to the low-priority digest`,
            ]
          : []),
        ...(kept ? kept.news : present ? [present.news] : []),
      ];
      decisions.push({
        action: "announce",
        incident,
        news,
        at: now,
        ...(atStart ? { delivery: "startup summary" as const } : {}),
      });
      continue;
    }
    // A held incident (silenced, out of scope, under maintenance) keeps its thread but says nothing new.
    const causeTold = previous.causeTold === true || hasCause(draft.findings);
    const symptoms = causeTold ? symptomReasons(draft.findings) : new Set<string>();
    const fresh = draft.held
      ? []
      : facts.filter((f) => !previous.told.includes(f) && !symptoms.has(f.replace(/^reason:/, "")));
    const acked = draft.held
      ? {
          news: [],
          state: {
            ...(previous.ack ? { ack: previous.ack } : {}),
            ...(previous.ackAtOpen ? { ackAtOpen: previous.ackAtOpen } : {}),
          },
        }
      : stepAck(previous, draft.ack);
    // A conversation whose findings were part of a larger incident (its node lost) and stand on their own again
    // while they still fail is told so at once in its own thread: the larger incident's resolve is not its end
    // (issue 50: a false all-clear).
    const absorber = previous.absorbedInto !== undefined ? state.incidents.get(previous.absorbedInto) : undefined;
    const standsAlone =
      previous.absorbedInto !== undefined && !draft.held
        ? [
            `still failing on its own: no longer part of ${absorber ? `${refLabel(absorber.root)} (${absorber.rootReason})` : previous.absorbedInto}`,
          ]
        : [];
    // Routine news waits out the cooldown after the last message; a page escalation or an ack change does not.
    const spokeAt = previous.spokeAt ?? previous.openedAt;
    const urgent = (previous.mode !== "page" && mode === "page") || acked.news.length > 0 || standsAlone.length > 0;
    const cooling = fresh.length > 0 && !urgent && now - spokeAt < UPDATE_COOLDOWN_SECONDS * 1000;
    const factNews = cooling ? [] : fresh;
    if (cooling && previous.coolsAt === undefined)
      skipped.push({ reason: "cooldown", incident: previous, subject: draft.root, at: now });
    // Reminders stop while acknowledged (spec 3.1) and never speak for a held incident. A paging incident is
    // reminded of on the page cadence, counted from its last message; any other after a quiet week.
    const paging = previous.mode === "page" && mode === "page";
    const pageReminders = paging && !acked.state.ack && acked.news.length === 0 ? (previous.pageReminders ?? 0) : 0;
    const remind =
      standsAlone.length === 0 &&
      !draft.held &&
      !cooling &&
      !acked.state.ack &&
      factNews.length === 0 &&
      acked.news.length === 0 &&
      now - (previous.remindedAt ?? previous.openedAt) >=
        reminderSeconds({ mode: paging ? "page" : mode, pageReminders }) * 1000;
    const reminder = paging
      ? `still paging, open for ${openFor(now - previous.openedAt)}, not acknowledged`
      : `still open after ${Math.floor((now - previous.openedAt) / 86_400_000)} days`;
    const news = [
      ...standsAlone,
      ...factNews.map((f) => describeFact(f, draft.findings)),
      ...acked.news,
      ...(remind ? [reminder] : []),
    ];
    // Any message restarts the week of silence a 'still open' reminder waits for.
    const remindedAt = news.length ? now : previous.remindedAt;
    const folds = recordFolds(previous, draft, previous.folds);
    const kept: KeptIncident = {
      ...base,
      // The conversation keeps the key it was announced with, so a pager resolves what it was sent.
      dedupKey: previous.mode === "page" || mode !== "page" ? previous.dedupKey : base.dedupKey,
      openedAt: previous.openedAt,
      ...(previous.announcedAt !== undefined ? { announcedAt: previous.announcedAt } : {}),
      told: factNews.length ? [...new Set([...previous.told, ...factNews])].sort() : previous.told,
      revision: news.length ? previous.revision + 1 : previous.revision,
      announced: true,
      ...(remindedAt !== undefined ? { remindedAt } : {}),
      ...(paging && (remind || pageReminders) ? { pageReminders: remind ? pageReminders + 1 : pageReminders } : {}),
      spokeAt: news.length ? now : spokeAt,
      ...(cooling ? { coolsAt: spokeAt + UPDATE_COOLDOWN_SECONDS * 1000 } : {}),
      ...(folds ? { folds } : {}),
      ...(causeTold ? { causeTold } : {}),
      ...acked.state,
    };
    next.set(id, kept);
    if (news.length) decisions.push({ action: "update", incident: kept, news, at: now });
  }

  // Which draft each would-be incident is folded into now, by its id.
  const foldedInto = new Map<string, IncidentDraft>();
  for (const draft of drafts) for (const f of draft.folded ?? []) foldedInto.set(refKey(f.root), draft);

  for (const [id, incident] of state.incidents) {
    if (seen.has(id)) continue;
    // Folding is never a resolve: an announced conversation whose findings became part of a larger incident
    // gets one update in its own thread naming it, and resolves only when those findings are gone.
    const into = incident.announced ? foldedInto.get(id) : undefined;
    if (into) {
      const intoId = refKey(into.root);
      if (incident.absorbedInto === intoId) continue;
      const absorbed: KeptIncident = {
        ...incident,
        absorbedInto: intoId,
        revision: incident.revision + 1,
        spokeAt: now,
      };
      next.set(id, absorbed);
      const news = [`now part of: ${refLabel(into.root)} (${into.rootReason})`];
      decisions.push({ action: "update", incident: absorbed, news, at: now });
      continue;
    }
    // No false resolve: findings gone while the root does not show recovery yet (pods starting, an EndpointSlice
    // lagging, a node's pods coming back) is a recovery in progress; the incident waits for it, bounded.
    const recovery = incident.announced || incident.digested ? options.recovery?.(incident) : undefined;
    const traffic = options.absorbed?.get(id) ?? [];
    if ((recovery && !recovery.recovered) || traffic.length > 0) {
      const since = incident.recovering ?? now;
      if (now - since < RECOVERY_WAIT_MS) {
        // Each would-be incident its recovery absorbed is recorded once, as a fold (spec 1.7 audit).
        const known = new Set(incident.folds ?? []);
        for (const subject of traffic)
          if (!known.has(refKey(subject))) {
            known.add(refKey(subject));
            skipped.push({ reason: "cascading_suppression", incident, subject, at: now });
          }
        const folds = known.size ? { folds: [...known] } : {};
        if (incident.recovering === undefined || traffic.length)
          next.set(id, { ...incident, recovering: since, ...folds });
        continue;
      }
    }
    next.delete(id);
    const {
      announced,
      digested,
      recurring: _r,
      remindedAt: _m,
      spokeAt: _s,
      coolsAt: _c,
      folds: _f,
      baseline: _b,
      ackAtOpen: _a,
      absorbedInto: _i,
      recovering: _v,
      ...kept
    } = incident;
    if (!announced && !digested) continue;
    const ended = { ...kept, phase: "resolved" as const, resolvedAt: now, revision: incident.revision + 1 };
    const causeOf = incident.folds?.length && incident.findings.some((f) => isOwnCause(id, f));
    recent.set(id, {
      resolvedAt: now,
      revision: ended.revision,
      ...(incident.ack ? { ack: incident.ack } : {}),
      ...(causeOf ? { folds: incident.folds } : {}),
    });
    if (announced) {
      decisions.push({ action: "resolve", incident: ended, news: [], at: now });
    } else {
      resolved.push(ended);
      decisions.push({ action: "resolve", incident: ended, news: [], at: now, delivery: "digest" });
    }
  }

  const rollUps = new Map<string, RollUp>();
  const closedRollUps: RollUp[] = [];
  const resolvedIds = new Set(decisions.filter((d) => d.action === "resolve").map((d) => d.incident.id));
  for (const [id, r] of state.rollUps) {
    const open = r.open.filter((i) => !resolvedIds.has(i));
    if (open.length === 0) closedRollUps.push({ ...r, open });
    else rollUps.set(id, open.length === r.open.length ? r : { ...r, open });
  }
  let rollUp: RollUp | undefined;
  const announced = decisions.filter((d) => d.action === "announce" && d.delivery === undefined);
  if (announced.length >= 2) {
    const covers = announced.map((d) => d.incident.id).sort();
    rollUp = { id: `roll-up@${now}`, openedAt: now, covers, open: covers };
    rollUps.set(rollUp.id, rollUp);
    for (let i = 0; i < decisions.length; i++)
      if (announced.includes(decisions[i]!)) decisions[i] = { ...decisions[i]!, delivery: "roll-up" };
  }
  let digest: Digest = { opened, resolved, ...(state.digest.dueAt !== undefined ? { dueAt: state.digest.dueAt } : {}) };
  let due: Digest | undefined;
  if (opened.length + resolved.length === 0) digest = { opened, resolved };
  else if (digest.dueAt === undefined) digest = { ...digest, dueAt: now + DIGEST_INTERVAL_SECONDS * 1000 };
  else if (digest.dueAt <= now) {
    due = digest;
    digest = { opened: [], resolved: [] };
  }
  return {
    decisions,
    skipped,
    state: { incidents: next, rollUps, digest, memory, recent },
    ...(rollUp ? { rollUp } : {}),
    closedRollUps,
    ...(due ? { digest: due } : {}),
  };
}

/**
 * The reason an incident keeps as its name: the draft's when it explains more than the one told before
 * (explanatoryDepth of the findings carrying each), the one told otherwise. A reason no finding carries (a root
 * the correlator made: an endpoint, a shared error) explains the most.
 */
function keptName(previous: Incident, draft: IncidentDraft): string {
  if (previous.rootReason === draft.rootReason) return draft.rootReason;
  const depth = (reason: string, findings: readonly Finding[]) =>
    Math.min(4, ...findings.filter((f) => f.reason === reason).map((f) => explanatoryDepth(f)));
  const before = previous.findings.some((f) => f.reason === previous.rootReason)
    ? depth(previous.rootReason, previous.findings)
    : 0;
  const now = draft.findings.some((f) => f.reason === draft.rootReason) ? depth(draft.rootReason, draft.findings) : 0;
  return now < before ? draft.rootReason : previous.rootReason;
}

/** Whether a finding that is not a symptom (a cause) is among `findings`. */
function hasCause(findings: readonly Finding[]): boolean {
  return findings.some((f) => !isSymptom(f));
}

/** Reasons carried only by symptoms among `findings`. */
function symptomReasons(findings: readonly Finding[]): Set<string> {
  const causes = new Set(findings.filter((f) => !isSymptom(f)).map((f) => f.reason));
  return new Set(findings.filter((f) => !causes.has(f.reason)).map((f) => f.reason));
}

/** Number of open incidents that were announced (the `mon_incidents_open` gauge). */
export function openCount(state: LifecycleState): number {
  let n = 0;
  for (const incident of state.incidents.values()) if (incident.announced) n++;
  return n;
}

/** How long a page has been open, for its reminder: `45 min`, `2 h 30 min`, `3 d 4 h`. */
function openFor(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ""}`;
  return `${Math.floor(hours / 24)} d${hours % 24 ? ` ${hours % 24} h` : ""}`;
}
