import type { DeliveryStore } from "../model/dispatch.ts";

/**
 * The delivery records under the state lock's fencing (spec 1.9; docs/leadership.md): every write goes through
 * only while `holds()` — this replica still holds the Lease under the term it led with. A deposed leader's
 * late writes are dropped (`onRefused` names the write), so it can never overwrite what the new leader
 * recorded in a shared state file. Reads are never fenced.
 */
export function fencedStore(
  store: DeliveryStore,
  holds: () => boolean,
  onRefused: (write: string) => void,
): DeliveryStore {
  const guard =
    <A extends unknown[]>(name: string, write: (...args: A) => Promise<void>) =>
    (...args: A): Promise<void> => {
      if (holds()) return write(...args);
      onRefused(name);
      return Promise.resolve();
    };
  return {
    ...store,
    saveJob: guard("saveJob", (job) => store.saveJob(job)),
    removeJob: guard("removeJob", (id) => store.removeJob(id)),
    saveConversation: guard("saveConversation", (p, i, c) => store.saveConversation(p, i, c)),
    removeConversation: guard("removeConversation", (p, i) => store.removeConversation(p, i)),
    saveDeadLetter: guard("saveDeadLetter", (letter) => store.saveDeadLetter(letter)),
    removeDeadLetter: guard("removeDeadLetter", (letter) => store.removeDeadLetter(letter)),
    saveRoute: guard("saveRoute", (id, providers) => store.saveRoute(id, providers)),
    removeRoute: guard("removeRoute", (id) => store.removeRoute(id)),
    saveBudget: guard("saveBudget", (provider, record) => store.saveBudget(provider, record)),
  };
}
