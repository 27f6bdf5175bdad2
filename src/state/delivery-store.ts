import type { BudgetRecord, DeadLetter, DeliveryStore, Dispatch } from "../model/dispatch.ts";
import type { StateStore } from "./store.ts";

/** Most dead letters kept; the oldest go first (they are also the first evicted to meet the size cap). */
export const MAX_DEAD_LETTERS = 1000;

/** What the delivery store reports; each callback is optional. */
export interface DeliveryStoreHooks {
  /** A stored record that cannot be decoded was skipped (`mon_storage_corrupt_records_total`). */
  corrupt?(key: string): void;
  /** A record older than its retention was deleted (`mon_storage_expired_total`). */
  expired?(key: string): void;
}

/** Conversation ids older than this are forgotten (an incident open longer is told in a new thread): 30 days. */
export const CONVERSATION_RETENTION_MS = 30 * 24 * 3_600_000;

/**
 * The delivery records in the state store (spec 1.9, 6): `outbox:<job id>`, `conversation:<provider>:<incident>`,
 * `route:<incident>` (the providers that got its announcement), `deadletter:<epoch ms>:<message id>`,
 * `budget:<provider>` (its hourly budget and what waits for its overflow digest). Keys are URI-encoded so ids with `/` or `:` stay one key. A record
 * that does not decode is skipped and reported, never fatal. Retention: conversation ids for 30 days (`now`
 * is the injected clock, epoch ms), dead letters the newest 1,000; outbox jobs are judged by delivery (24 h).
 */
export function createDeliveryStore(
  store: StateStore,
  hooks: DeliveryStoreHooks = {},
  now: () => number = () => 0,
): DeliveryStore {
  const key = (...parts: string[]) => parts.map((p, i) => (i === 0 ? p : encodeURIComponent(p))).join(":");
  const load = async <T>(prefix: string, valid: (v: unknown) => v is T): Promise<{ key: string; value: T }[]> => {
    const out: { key: string; value: T }[] = [];
    for (const k of await store.keys(prefix)) {
      let value: unknown;
      try {
        value = await store.get(k);
      } catch {
        value = undefined;
      }
      if (valid(value)) out.push({ key: k, value });
      else {
        hooks.corrupt?.(k);
        await store.remove(k);
      }
    }
    return out;
  };
  return {
    saveJob: async (job) => void (await store.set(key("outbox", job.id), job)),
    removeJob: (id) => store.remove(key("outbox", id)),
    async loadJobs() {
      return (await load("outbox", isJob)).map((r) => r.value).sort((a, b) => a.createdAt - b.createdAt);
    },
    saveConversation: async (provider, incidentId, conversation) =>
      void (await store.set(key("conversation", provider, incidentId), {
        provider,
        incidentId,
        conversation,
        savedAt: now(),
      })),
    removeConversation: (provider, incidentId) => store.remove(key("conversation", provider, incidentId)),
    async loadConversations() {
      const out: { provider: string; incidentId: string; conversation: string }[] = [];
      for (const { key: k, value } of await load("conversation", isConversation)) {
        if (typeof value.savedAt === "number" && now() - value.savedAt > CONVERSATION_RETENTION_MS) {
          await store.remove(k);
          hooks.expired?.(k);
          continue;
        }
        out.push({ provider: value.provider, incidentId: value.incidentId, conversation: value.conversation });
      }
      return out;
    },
    saveRoute: async (incidentId, providers) =>
      void (await store.set(key("route", incidentId), { incidentId, providers: [...providers], savedAt: now() })),
    removeRoute: (incidentId) => store.remove(key("route", incidentId)),
    async loadRoutes() {
      const out: [string, string[]][] = [];
      for (const { key: k, value } of await load("route", isRoute)) {
        if (typeof value.savedAt === "number" && now() - value.savedAt > CONVERSATION_RETENTION_MS) {
          await store.remove(k);
          hooks.expired?.(k);
          continue;
        }
        out.push([value.incidentId, value.providers]);
      }
      return out;
    },
    saveBudget: async (provider, record) =>
      record ? void (await store.set(key("budget", provider), record)) : store.remove(key("budget", provider)),
    async loadBudgets() {
      return (await load("budget", isBudget)).map((r) => r.value);
    },
    async saveDeadLetter(letter) {
      await store.set(
        key("deadletter", String(letter.at).padStart(15, "0"), letter.messageId, letter.provider),
        letter,
      );
      const all = await store.keys("deadletter");
      for (const old of all.slice(0, Math.max(0, all.length - MAX_DEAD_LETTERS))) await store.remove(old);
    },
    removeDeadLetter: (letter) =>
      store.remove(key("deadletter", String(letter.at).padStart(15, "0"), letter.messageId, letter.provider)),
    async loadDeadLetters() {
      return (await load("deadletter", isDeadLetter)).map((r) => r.value);
    },
  };
}

// --- internal ---

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

function isJob(v: unknown): v is Dispatch {
  return (
    isObject(v) &&
    typeof v.id === "string" &&
    typeof v.provider === "string" &&
    typeof v.createdAt === "number" &&
    isObject(v.message) &&
    typeof v.message.id === "string" &&
    typeof v.message.incidentId === "string"
  );
}

function isConversation(
  v: unknown,
): v is { provider: string; incidentId: string; conversation: string; savedAt?: number } {
  return (
    isObject(v) &&
    typeof v.provider === "string" &&
    typeof v.incidentId === "string" &&
    typeof v.conversation === "string"
  );
}

function isRoute(v: unknown): v is { incidentId: string; providers: string[]; savedAt?: number } {
  return (
    isObject(v) &&
    typeof v.incidentId === "string" &&
    Array.isArray(v.providers) &&
    v.providers.every((p) => typeof p === "string")
  );
}

function isDeadLetter(v: unknown): v is DeadLetter {
  return isObject(v) && typeof v.provider === "string" && typeof v.messageId === "string" && typeof v.at === "number";
}

function isBudget(v: unknown): v is BudgetRecord {
  const numbers = (a: unknown) => Array.isArray(a) && a.every((t) => typeof t === "number");
  const strings = (a: unknown) => Array.isArray(a) && a.every((t) => typeof t === "string");
  const overflow = (o: unknown) =>
    o === undefined ||
    (isObject(o) &&
      typeof o.since === "number" &&
      isObject(o.counts) &&
      Object.values(o.counts).every((n) => typeof n === "number") &&
      strings(o.incidents));
  return isObject(v) && typeof v.provider === "string" && numbers(v.sent) && strings(v.folded) && overflow(v.overflow);
}
