import type { Action } from "../model/decision.ts";
import type { Dispatch } from "../model/dispatch.ts";
import type { Message } from "../model/message.ts";
import { refLabel } from "../model/object-ref.ts";
import type { Tier } from "../model/severity.ts";

/** How long a resolved incident stays on the page after its resolve, ms: 24 hours (issue 44). */
export const RESOLVED_KEPT_MS = 24 * 3_600_000;
/** Most incidents remembered; the one told longest ago goes first. */
export const MAX_STORIES = 12_000;
/** Most messages remembered per incident (the first, the announcement, is always kept). */
export const MAX_MESSAGES = 30;
/**
 * Most characters of message text kept over all incidents (about 16 MiB): past it, the oldest incidents' messages
 * lose their text and keep their title, action, time and providers.
 */
export const MAX_TEXT_CHARS = 8 * 2 ** 20;
/** Most blind periods remembered. */
const MAX_BLIND = 200;
/** Most starts of mon remembered (drawn on the timeline). */
export const MAX_STARTS = 50;

/**
 * What changed in a history since the last `takeChanges()`: incidents to write (as they are now) and to remove,
 * the blind periods and starts as they are now (when they changed). What a state store keeps (issue 54).
 */
export interface HistoryChanges {
  readonly put: readonly IncidentStory[];
  readonly removed: readonly string[];
  readonly blinds?: readonly BlindPeriod[];
  readonly starts?: readonly number[];
}

/** One message as it was sent: when (epoch ms), what, and to which providers. */
export interface ToldMessage {
  readonly at: number;
  readonly action: Action | "digest";
  readonly title: string;
  /** The message as sent; undefined once MAX_TEXT_CHARS made room for newer ones. */
  readonly text?: string;
  readonly providers: readonly string[];
}

/** One what-changed event named by an incident's messages: when (epoch ms) and what, in one line. */
export interface ChangeTick {
  readonly at: number;
  readonly text: string;
}

/**
 * One incident as its messages told it (issue 44): its root, reason and tier as last told, when it was first
 * told and resolved (epoch ms), its Changed: and Impact: lines, and its messages (at most MAX_MESSAGES).
 */
export interface IncidentStory {
  readonly id: string;
  readonly root: string;
  readonly namespace?: string;
  readonly reason: string;
  readonly tier: Tier;
  readonly emoji: string;
  readonly title: string;
  readonly firstAt: number;
  readonly resolvedAt?: number;
  readonly findings: number;
  readonly objects: readonly string[];
  readonly changed?: string;
  readonly impact?: string;
  readonly messages: readonly ToldMessage[];
  readonly changes: readonly ChangeTick[];
}

/** A period mon could not see part of the cluster (its blind notices), epoch ms; `to` undefined while blind. */
export interface BlindPeriod {
  readonly id: string;
  readonly from: number;
  readonly to?: number;
}

/**
 * What the page shows, remembered as the messages go out (issues 44, 54): nothing else is stored. Bounded by
 * MAX_STORIES incidents of at most MAX_MESSAGES messages, MAX_TEXT_CHARS of their text, and resolved ones leave
 * RESOLVED_KEPT_MS after their resolve. What changed is handed out by `takeChanges()` for a state store to keep
 * (Pro), and `restore()` takes back what it kept, so a restart or a new leader shows what was told before.
 * Pure: time is the caller's.
 */
export class TellHistory {
  /** True while a state store keeps this history (Pro's state file): a restart or a new leader shows it again. */
  persistent = false;
  private readonly stories = new Map<string, IncidentStory>();
  private readonly blinds = new Map<string, BlindPeriod>();
  private starts: number[] = [];
  private readonly dirty = new Set<string>();
  private readonly gone = new Set<string>();
  private blindsChanged = false;
  private startsChanged = false;
  /** Characters of message text kept, and the incidents whose messages still hold text, oldest told first. */
  private textChars = 0;
  private readonly withText = new Set<string>();

  /**
   * Records what went out at `now` (epoch ms): each distinct message of the routed `jobs` with the providers it
   * went to (a combined opened-and-resolved message is its own), or `message` with none when no provider took it.
   */
  sent(message: Message, jobs: readonly Dispatch[], now: number): void {
    const byMessage = new Map<string, { message: Message; providers: string[] }>();
    for (const job of jobs) {
      const seen = byMessage.get(job.message.id) ?? { message: job.message, providers: [] };
      seen.providers.push(job.provider);
      byMessage.set(job.message.id, seen);
    }
    if (byMessage.size === 0) this.told(message, [], now);
    for (const { message: m, providers } of byMessage.values()) this.told(m, providers, now);
  }

  /** Records `message` sent at `now` (epoch ms) to `providers`. Plain notices other than blind ones are not kept. */
  told(message: Message, providers: readonly string[], now: number): void {
    if (message.incidentId.startsWith("blind:")) {
      this.blind(message, now);
      return;
    }
    if (message.delivery === "notice") return;
    const sent: ToldMessage = {
      at: now,
      action: message.covers?.length ? "digest" : message.action,
      title: message.title,
      text: message.text,
      providers,
    };
    // A digest, roll-up or summary is a mark on each incident it names. One the page does not know yet — told
    // first in that summary, as after a restart (issue 52 item 7) — begins its story there: open, as told.
    if (message.covers?.length) {
      for (const id of message.covers) {
        const story = this.stories.get(id);
        if (story) {
          this.put({ ...story, messages: capped([...story.messages, sent]) });
          continue;
        }
        const facts = message.problems?.find((p) => p.incidentId === id);
        const root = rootOf(id);
        const reason = facts?.reasons[0] ?? message.reason;
        this.put({
          id,
          root: refLabel(root),
          ...(root.namespace ? { namespace: root.namespace } : {}),
          reason,
          tier: facts?.tier ?? message.tier,
          emoji: message.emoji,
          title: `${refLabel(root)}: ${reason}`,
          firstAt: now,
          findings: 1,
          objects: [refLabel(root)],
          messages: [sent],
          changes: [],
        });
      }
      return;
    }
    const before = this.stories.get(message.incidentId);
    const line = (label: string) =>
      message.text
        .split("\n")
        .find((l) => l.trimStart().startsWith(label))
        ?.trim();
    const changed = line("Changed:") ?? before?.changed;
    const impact = line("Impact:") ?? before?.impact;
    const resolved = message.action === "resolve" || message.action === "opened_resolved";
    const ticks = new Map((before?.changes ?? []).map((c) => [`${c.at} ${c.text}`, c]));
    for (const c of message.changes ?? []) {
      const text = `${c.kind} ${refLabel(c.object)}${c.what.length ? `: ${c.what.join("; ")}` : ""}`;
      ticks.set(`${c.at} ${text}`, { at: c.at, text });
    }
    this.put({
      id: message.incidentId,
      root: refLabel(message.root),
      ...(message.root.namespace ? { namespace: message.root.namespace } : {}),
      reason: message.reason,
      // A resolve is told as ✅ "Resolved: …": the incident keeps the tier, emoji and title it was told with.
      tier: resolved && before ? before.tier : message.tier,
      emoji: resolved && before ? before.emoji : message.emoji,
      // An update's title says "Update:" to a chat; the page says what the incident is (issue 54).
      title: resolved && before ? before.title : message.title.replace(/^Update: /, ""),
      firstAt: before?.firstAt ?? now,
      ...(resolved ? { resolvedAt: now } : {}),
      findings: message.findings.length,
      objects: [...new Set(message.findings.map((f) => refLabel(f.object)))],
      ...(changed ? { changed } : {}),
      ...(impact ? { impact } : {}),
      messages: capped([...(before?.messages ?? []), sent]),
      changes: [...ticks.values()].sort((a, b) => a.at - b.at).slice(-MAX_MESSAGES),
    });
  }

  /** The incidents remembered at `now`, most recently told first; resolved ones past RESOLVED_KEPT_MS are forgotten. */
  list(now: number): readonly IncidentStory[] {
    for (const [id, s] of this.stories)
      if (s.resolvedAt !== undefined && now - s.resolvedAt > RESOLVED_KEPT_MS) this.forget(id);
    return [...this.stories.values()].reverse();
  }

  /** One incident by id. */
  get(id: string): IncidentStory | undefined {
    return this.stories.get(id);
  }

  /** The blind periods remembered, oldest first. */
  blindPeriods(): readonly BlindPeriod[] {
    return [...this.blinds.values()];
  }

  /** mon (a leader's work) began at `at` (epoch ms): drawn on the timeline, kept with the history. */
  started(at: number): void {
    this.starts = [...this.starts, at].slice(-MAX_STARTS);
    this.startsChanged = true;
  }

  /** When mon began, oldest first: this process's start, and the earlier ones a state store kept. */
  startTimes(): readonly number[] {
    return this.starts;
  }

  /**
   * Takes back what a state store kept (before anything is told): the incidents in the order they were told, the
   * blind periods, the starts. What is past its retention at `now` is dropped (and reported removed).
   */
  restore(
    kept: { stories: readonly IncidentStory[]; blinds: readonly BlindPeriod[]; starts: readonly number[] },
    now: number,
  ): void {
    for (const story of [...kept.stories].sort((a, b) => lastAt(a) - lastAt(b))) this.put(story);
    for (const b of kept.blinds) this.blinds.set(b.id, b);
    this.starts = [...kept.starts, ...this.starts].sort((a, b) => a - b).slice(-MAX_STARTS);
    this.dirty.clear();
    this.list(now);
  }

  /** What changed since the last call (see HistoryChanges), and forgets it. */
  takeChanges(): HistoryChanges {
    const put = [...this.dirty].flatMap((id) => {
      const story = this.stories.get(id);
      return story ? [story] : [];
    });
    const changes: HistoryChanges = {
      put,
      removed: [...this.gone].filter((id) => !this.stories.has(id)),
      ...(this.blindsChanged ? { blinds: this.blindPeriods() } : {}),
      ...(this.startsChanged ? { starts: this.starts } : {}),
    };
    this.dirty.clear();
    this.gone.clear();
    this.blindsChanged = this.startsChanged = false;
    return changes;
  }

  // --- internal ---

  private put(story: IncidentStory): void {
    // Most recently told last, so the oldest is the first to go.
    this.forget(story.id);
    this.stories.set(story.id, story);
    this.dirty.add(story.id);
    this.gone.delete(story.id);
    this.textChars += textOf(story);
    this.withText.add(story.id);
    if (this.stories.size > MAX_STORIES) this.forget(this.stories.keys().next().value!);
    // Over the text budget: the oldest incidents keep their messages' titles, not their texts.
    for (const id of this.withText) {
      if (this.textChars <= MAX_TEXT_CHARS || id === story.id) break;
      const old = this.stories.get(id)!;
      this.textChars -= textOf(old);
      this.withText.delete(id);
      this.stories.set(id, { ...old, messages: old.messages.map(({ text: _dropped, ...m }) => m) });
      this.dirty.add(id);
    }
  }

  private forget(id: string): void {
    const old = this.stories.get(id);
    if (!old) return;
    if (this.withText.delete(id)) this.textChars -= textOf(old);
    this.stories.delete(id);
    this.dirty.delete(id);
    this.gone.add(id);
  }

  private blind(message: Message, now: number): void {
    this.blindsChanged = true;
    const seen = this.blinds.get(message.incidentId);
    if (message.action === "resolve") {
      if (seen) this.blinds.set(message.incidentId, { ...seen, to: now });
      return;
    }
    // The thread names when the blindness began (`blind:<key>@<from>`, notify/notice.ts): before it was told.
    const from = Number(message.incidentId.slice(message.incidentId.lastIndexOf("@") + 1));
    if (!seen)
      this.blinds.set(message.incidentId, { id: message.incidentId, from: Number.isFinite(from) ? from : now });
    if (this.blinds.size > MAX_BLIND) this.blinds.delete(this.blinds.keys().next().value!);
  }
}

/** When an incident was last told (epoch ms): the order in which a restored history is put back. */
function lastAt(story: IncidentStory): number {
  return story.messages[story.messages.length - 1]?.at ?? story.firstAt;
}

function textOf(story: IncidentStory): number {
  let chars = 0;
  for (const m of story.messages) chars += m.text?.length ?? 0;
  return chars;
}

function capped(messages: readonly ToldMessage[]): readonly ToldMessage[] {
  return messages.length <= MAX_MESSAGES ? messages : [messages[0]!, ...messages.slice(-(MAX_MESSAGES - 1))];
}

/** The root an incident id names (`Kind/namespace/name`, the namespace empty for cluster-wide roots). */
function rootOf(id: string): { kind: string; namespace?: string; name: string } {
  const [kind = id, namespace = "", ...name] = id.split("/");
  return { kind, ...(namespace ? { namespace } : {}), name: name.join("/") || id };
}
