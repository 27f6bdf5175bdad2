import type { BudgetRecord } from "../model/dispatch.ts";
import { isSummary, type Message } from "../model/message.ts";

export type { BudgetRecord } from "../model/dispatch.ts";

/** Milliseconds after the first folded message that its overflow digest goes out. */
export const OVERFLOW_DIGEST_DELAY_MS = 10 * 60_000;

/** Milliseconds of the budget's sliding window: an hour. */
const HOUR_MS = 3_600_000;

/** Messages one provider's budget folded, waiting for their overflow digest (spec 6 item 3). */
export interface Overflow {
  readonly provider: string;
  /** Epoch ms of the first folded message. */
  readonly since: number;
  /** Folded messages per reason. */
  readonly counts: ReadonlyMap<string, number>;
  /** Incidents whose conversations were folded. */
  readonly incidents: readonly string[];
}

/** The hourly budgets of every provider (spec 6 item 3, 8). */
export interface Budgets {
  /** True when `message` goes to `provider`; false when it is folded into the provider's overflow digest. */
  admit(provider: string, message: Message, now: number): boolean;
  /** Overflow digests due at `now` (10 minutes after their first folded message), taken out, oldest first. */
  due(now: number): Overflow[];
  /** Epoch ms of the next overflow digest due, for the pass to wake up then. */
  nextDueAt(): number | undefined;
  /** The provider's budget now, to persist; undefined when it has nothing to keep. */
  snapshot(provider: string, now: number): BudgetRecord | undefined;
  /** Takes up budgets an earlier process kept (records of providers without a budget keep only their overflow). */
  restore(records: readonly BudgetRecord[]): void;
  /** The incidents whose conversation the budget folded, with the providers it folded them at. */
  foldedAt(): ReadonlyMap<string, readonly string[]>;
}

/**
 * Hourly budgets (spec 6 item 3): per provider, at most `limits.get(provider)` new conversations in any hour
 * (0 or absent: unlimited). An announcement over budget is folded, and so are the later updates and the resolve
 * of its conversation; updates and resolves of announced conversations are never counted. Page-tier messages
 * are exempt, and summaries, roll-ups and digests already fold and are not counted. Folded messages go into one
 * overflow digest per provider, due 10 minutes after the first of them.
 */
export function createBudgets(limits: ReadonlyMap<string, number>): Budgets {
  const sent = new Map<string, number[]>();
  const folded = new Map<string, Set<string>>();
  const pending = new Map<string, { since: number; counts: Map<string, number>; incidents: Set<string> }>();

  const fold = (provider: string, message: Message, now: number) => {
    let p = pending.get(provider);
    if (!p) pending.set(provider, (p = { since: now, counts: new Map(), incidents: new Set() }));
    p.counts.set(message.reason, (p.counts.get(message.reason) ?? 0) + 1);
    p.incidents.add(message.incidentId);
    return false;
  };

  return {
    admit(provider, message, now) {
      const limit = limits.get(provider) ?? 0;
      if (limit === 0 || isSummary(message)) return true;
      const conversations = folded.get(provider) ?? new Set<string>();
      folded.set(provider, conversations);
      const opens = message.action === "announce" || message.action === "opened_resolved";
      if (!opens) {
        if (!conversations.has(message.incidentId)) return true;
        if (message.action === "resolve") conversations.delete(message.incidentId);
        return fold(provider, message, now);
      }
      if (message.mode === "page") return true;
      const window = (sent.get(provider) ?? []).filter((t) => now - t < HOUR_MS);
      sent.set(provider, window);
      if (window.length < limit) {
        window.push(now);
        return true;
      }
      if (message.action === "announce") conversations.add(message.incidentId);
      return fold(provider, message, now);
    },
    due(now) {
      const out: Overflow[] = [];
      for (const [provider, p] of pending) {
        if (now - p.since < OVERFLOW_DIGEST_DELAY_MS) continue;
        pending.delete(provider);
        out.push({ provider, since: p.since, counts: p.counts, incidents: [...p.incidents] });
      }
      // Oldest first, then by name: the same order whichever process folded them.
      return out.sort((a, b) => a.since - b.since || a.provider.localeCompare(b.provider));
    },
    nextDueAt() {
      let next: number | undefined;
      for (const p of pending.values())
        if (next === undefined || p.since + OVERFLOW_DIGEST_DELAY_MS < next) next = p.since + OVERFLOW_DIGEST_DELAY_MS;
      return next;
    },
    snapshot(provider, now) {
      const window = (sent.get(provider) ?? []).filter((t) => now - t < HOUR_MS);
      const conversations = [...(folded.get(provider) ?? [])];
      const p = pending.get(provider);
      if (window.length === 0 && conversations.length === 0 && !p) return undefined;
      return {
        provider,
        sent: window,
        folded: conversations,
        ...(p
          ? { overflow: { since: p.since, counts: Object.fromEntries(p.counts), incidents: [...p.incidents] } }
          : {}),
      };
    },
    restore(records) {
      for (const r of records) {
        sent.set(r.provider, [...r.sent]);
        folded.set(r.provider, new Set(r.folded));
        if (r.overflow)
          pending.set(r.provider, {
            since: r.overflow.since,
            counts: new Map(Object.entries(r.overflow.counts)),
            incidents: new Set(r.overflow.incidents),
          });
      }
    },
    foldedAt() {
      const out = new Map<string, string[]>();
      for (const [provider, ids] of folded) for (const id of ids) out.set(id, [...(out.get(id) ?? []), provider]);
      return out;
    },
  };
}
