import {
  type BudgetRecord,
  type DeadLetter,
  type DeliveryStore,
  deadLetterId,
  type Dispatch,
} from "../model/dispatch.ts";
import type { Logger } from "../runtime/logger.ts";

/**
 * What delivery keeps across restarts (spec 1.9, 6), in memory and, with a store, persisted: the outbox (every
 * job from before its first attempt until it settles), the vendors' conversation (thread) ids, the dead
 * letters (at most `maxDeadLetters`, oldest dropped first), and the hourly budgets with their overflow. A failed write is logged and delivery goes on
 * from memory.
 */
export interface DeliveryRecords {
  /** Writes a job to the outbox; `written(id)` resolves once the write is done (or failed). */
  saveJob(job: Dispatch): void;
  written(jobId: string): Promise<void>;
  /** Resolves once every outbox write begun so far has finished (written or failed). */
  flushed(): Promise<void>;
  removeJob(job: Dispatch): void;
  conversation(provider: string, incidentId: string): string | undefined;
  setConversation(provider: string, incidentId: string, conversation: string): void;
  endConversation(provider: string, incidentId: string): void;
  addDeadLetter(letter: DeadLetter): void;
  deadLetters(): readonly DeadLetter[];
  /** Removes the dead letter with this id (`<provider>:<message id>`); returns it, or undefined when there is none. */
  takeDeadLetter(id: string): DeadLetter | undefined;
  /** Keeps one provider's hourly budget and overflow (none: nothing to keep); `flushed()` waits for it too. */
  saveBudget(provider: string, record: BudgetRecord | undefined): void;
  /** Loads conversation ids and dead letters; returns the outbox's jobs, oldest first, and the budgets. */
  restore(): Promise<{ jobs: Dispatch[]; budgets: BudgetRecord[] }>;
}

/** Creates the records over `store` (none: memory only). */
export function createDeliveryRecords(options: {
  store?: DeliveryStore;
  logger: Logger;
  maxDeadLetters?: number;
}): DeliveryRecords {
  const { store, logger } = options;
  const conversations = new Map<string, string>();
  const letters: DeadLetter[] = [];
  const writes = new Map<string, Promise<void>>();
  // The last budget write per provider: a later one waits for it, so the store keeps the newest.
  const budgetWrites = new Map<string, Promise<void>>();
  const key = (provider: string, incidentId: string) => `${provider}\u0000${incidentId}`;
  const persist = (label: string, work: (s: DeliveryStore) => Promise<void>): Promise<void> =>
    store
      ? work(store).catch((error: unknown) =>
          logger.warn(`state store: ${label} failed (${(error as Error).message}); delivery goes on from memory`),
        )
      : Promise.resolve();

  return {
    saveJob(job) {
      writes.set(
        job.id,
        persist(`writing ${job.id} to the outbox`, (s) => s.saveJob(job)),
      );
    },
    written: (jobId) => writes.get(jobId) ?? Promise.resolve(),
    flushed: () => Promise.all([...writes.values(), ...budgetWrites.values()]).then(() => undefined),
    removeJob(job) {
      writes.delete(job.id);
      void persist(`removing ${job.id} from the outbox`, (s) => s.removeJob(job.id));
    },
    conversation: (provider, incidentId) => conversations.get(key(provider, incidentId)),
    setConversation(provider, incidentId, conversation) {
      if (conversations.get(key(provider, incidentId)) === conversation) return;
      conversations.set(key(provider, incidentId), conversation);
      void persist("saving a conversation id", (s) => s.saveConversation(provider, incidentId, conversation));
    },
    endConversation(provider, incidentId) {
      conversations.delete(key(provider, incidentId));
      void persist("removing a conversation", (s) => s.removeConversation(provider, incidentId));
    },
    addDeadLetter(letter) {
      letters.push(letter);
      if (letters.length > (options.maxDeadLetters ?? 1000)) letters.shift();
      void persist("saving a dead letter", (s) => s.saveDeadLetter(letter));
    },
    deadLetters: () => [...letters],
    takeDeadLetter(id) {
      const at = letters.findIndex((l) => deadLetterId(l) === id);
      if (at < 0) return undefined;
      const [letter] = letters.splice(at, 1);
      void persist("removing a dead letter", (s) => s.removeDeadLetter(letter!));
      return letter;
    },
    saveBudget(provider, record) {
      const before = budgetWrites.get(provider) ?? Promise.resolve();
      budgetWrites.set(
        provider,
        before.then(() => persist(`saving ${provider}'s hourly budget`, (s) => s.saveBudget(provider, record))),
      );
    },
    async restore() {
      if (!store) return { jobs: [], budgets: [] };
      for (const c of await store.loadConversations()) conversations.set(key(c.provider, c.incidentId), c.conversation);
      for (const letter of await store.loadDeadLetters()) letters.push(letter);
      return { jobs: await store.loadJobs(), budgets: await store.loadBudgets() };
    },
  };
}
