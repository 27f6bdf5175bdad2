import type { BlindPeriod, IncidentStory, TellHistory } from "../../page/history.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { StateStore } from "../../state/store.ts";

/** The state store's keys of the page's history (issue 54). */
const STORY = "page:story:";
const BLIND = "page:blind";
const STARTS = "page:starts";

/** The incidents page's history kept in the state store, as the leader's work keeps it. */
export interface PageKeeper {
  /**
   * Puts back what the state store kept (a persistent one: Pro's state file) into the history, then records this
   * start at `now`; resolves with how many incidents came back. Nothing with a store in memory (Community).
   */
  restore(now: number): Promise<number>;
  /** Something was told: what changed is written soon (one write at a time, never blocking delivery). */
  changed(): void;
  /** Resolves once what changed so far is written. */
  flushed(): Promise<void>;
}

/**
 * Keeps the page's history (page/history.ts) in the state store while it is persistent (Pro; issue 54): one key
 * per incident (`page:story:<id>`), the blind periods and mon's starts, written as they change, bounded as the
 * history is (what it forgets is removed). Only the holder of the state lock writes (`holds`): a deposed
 * leader never overwrites what the new one keeps. A record that does not decode is skipped, never fatal.
 */
export function createPageKeeper(deps: {
  store: () => StateStore;
  history: TellHistory;
  holds?: () => boolean;
  logger: Logger;
}): PageKeeper {
  const { history, logger } = deps;
  let writing: Promise<void> = Promise.resolve();
  let pending = false;
  const write = async () => {
    pending = false;
    const store = deps.store();
    const changes = history.takeChanges();
    history.persistent = store.persistent;
    if (!store.persistent || !(deps.holds?.() ?? true)) return;
    for (const story of changes.put) await store.set(`${STORY}${encodeURIComponent(story.id)}`, story);
    for (const id of changes.removed) await store.remove(`${STORY}${encodeURIComponent(id)}`);
    if (changes.blinds) await store.set(BLIND, changes.blinds);
    if (changes.starts) await store.set(STARTS, changes.starts);
  };
  return {
    async restore(now) {
      const store = deps.store();
      let restored = 0;
      history.persistent = store.persistent;
      if (store.persistent) {
        const stories: IncidentStory[] = [];
        for (const key of await store.keys(STORY)) {
          const value = await store.get(key).catch(() => undefined);
          if (isStory(value)) stories.push(value);
          else logger.warn(`state store: ${key} is not an incident of the page; skipped`);
        }
        const blinds = await store.get(BLIND).catch(() => undefined);
        const starts = await store.get(STARTS).catch(() => undefined);
        history.restore(
          {
            stories,
            blinds: Array.isArray(blinds) ? (blinds as BlindPeriod[]).filter((b) => typeof b?.from === "number") : [],
            starts: Array.isArray(starts) ? starts.filter((t): t is number => typeof t === "number") : [],
          },
          now,
        );
        restored = stories.length;
      }
      history.started(now);
      this.changed();
      return restored;
    },
    changed() {
      if (pending) return;
      pending = true;
      writing = writing.then(write).catch((error: unknown) => {
        logger.warn(`state store: keeping the incidents page's history failed: ${(error as Error).message}`);
      });
    },
    flushed: () => writing,
  };
}

/** True for what a kept incident of the page looks like (anything else in the store is skipped). */
function isStory(v: unknown): v is IncidentStory {
  const s = v as IncidentStory | undefined;
  return (
    typeof s === "object" &&
    s !== null &&
    typeof s.id === "string" &&
    typeof s.firstAt === "number" &&
    Array.isArray(s.messages) &&
    Array.isArray(s.changes) &&
    Array.isArray(s.objects)
  );
}
