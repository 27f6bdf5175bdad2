import type { Message } from "./message.ts";

/** Queue priority (spec 6 item 6): resolves and pages go ahead of routine messages. */
export type Priority = "urgent" | "routine";

/** One message for one provider (route/ output, deliver/ input). */
export interface Dispatch {
  /** `<provider>:<message id>` */
  readonly id: string;
  readonly provider: string;
  readonly message: Message;
  readonly priority: Priority;
  /** Epoch ms when the job was queued; retries stop 24 h after it (spec 8). */
  readonly createdAt: number;
  /** For a resolve: the combined 'opened and resolved' message to send instead when the announcement never went out (spec 3.1). */
  readonly openedResolved?: Message;
}

/**
 * How a provider classified one delivery attempt (STYLE.md convention 3). `conversation` is the vendor's
 * thread id, when it gave one; `untracked` marks an issue create whose answer named no issue.
 */
export type Outcome =
  | { readonly kind: "ok"; readonly conversation?: string; readonly untracked?: boolean }
  | { readonly kind: "retry"; readonly reason: string; readonly afterMs?: number }
  | { readonly kind: "rateLimited"; readonly afterMs?: number }
  | { readonly kind: "permanent"; readonly reason: string; readonly failure: PermanentFailure };

/**
 * Why a provider refused for good, decided where the vendor's answer is understood (issue 31.6), not parsed
 * back from its words: a credential (`unauthorized`: 401/403, a revoked token), the size (`too_large`: 413, "too
 * long": delivery shortens and sends again), or anything else (`rejected`).
 */
export type PermanentFailure = "unauthorized" | "too_large" | "rejected";

/** A message a provider refused for good (spec 6 item 1), kept for inspection: the reason quotes the provider's answer, redacted. */
export interface DeadLetter {
  /** `<provider>:<message id>`: the refused job's id, how /deadletters names it. */
  readonly id?: string;
  readonly provider: string;
  readonly messageId: string;
  readonly incidentId: string;
  readonly action: Message["action"];
  readonly reason: string;
  /** Epoch ms. */
  readonly at: number;
  /** The refused job, so that it can be sent again (`POST /deadletters/<id>/retry`); absent on letters of older versions. */
  readonly job?: Dispatch;
}

/** How /deadletters names a letter: its job's id, `<provider>:<message id>` (also for letters kept without one). */
export function deadLetterId(letter: DeadLetter): string {
  return letter.id ?? `${letter.provider}:${letter.messageId}`;
}

/**
 * One provider's budget as the state store keeps it (`budget:<provider>`, deliver/budget.ts), so a restart, a takeover or a
 * MonConfig apply neither forgets the hour's new conversations nor drops what waits for the overflow digest.
 * Times are epoch ms.
 */
export interface BudgetRecord {
  readonly provider: string;
  /** When each new conversation of the last hour was admitted. */
  readonly sent: readonly number[];
  /** Incidents whose announcement was folded and that have not resolved: their later messages fold too. */
  readonly folded: readonly string[];
  /** What waits for the overflow digest, if anything. */
  readonly overflow?: {
    readonly since: number;
    readonly counts: Readonly<Record<string, number>>;
    readonly incidents: readonly string[];
  };
}

/**
 * Where delivery keeps what must survive a restart (spec 1.9, 6): the outbox (every job from before its first
 * attempt until it is delivered, dropped or dead-lettered), the vendors' conversation ids, the dead letters.
 * Implemented by `state/`; writes may fail (then delivery goes on from memory).
 */
export interface DeliveryStore {
  saveJob(job: Dispatch): Promise<void>;
  removeJob(id: string): Promise<void>;
  /** Jobs left by an earlier process, oldest first; undecodable records are skipped (and counted by the store). */
  loadJobs(): Promise<Dispatch[]>;
  saveConversation(provider: string, incidentId: string, conversation: string): Promise<void>;
  removeConversation(provider: string, incidentId: string): Promise<void>;
  loadConversations(): Promise<{ provider: string; incidentId: string; conversation: string }[]>;
  saveDeadLetter(letter: DeadLetter): Promise<void>;
  removeDeadLetter(letter: DeadLetter): Promise<void>;
  loadDeadLetters(): Promise<DeadLetter[]>;
  /** Which providers got an incident's announcement (route/), so its updates and resolve follow after a restart. */
  saveRoute(incidentId: string, providers: readonly string[]): Promise<void>;
  removeRoute(incidentId: string): Promise<void>;
  loadRoutes(): Promise<[string, string[]][]>;
  /** One provider's hourly budget and overflow (deliver/budget.ts); `undefined` removes it. */
  saveBudget(provider: string, record: BudgetRecord | undefined): Promise<void>;
  loadBudgets(): Promise<BudgetRecord[]>;
}
