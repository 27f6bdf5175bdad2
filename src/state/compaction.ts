import type { StateStore } from "./store.ts";

/** Share of MON_VOLUME_LIMIT the state file may use; the rest is headroom for SQLite's own rewrites. */
export const CAP_SHARE = 0.5;

/** Cap without MON_VOLUME_LIMIT: 256 MiB. */
export const DEFAULT_CAP_BYTES = 256 * 1024 * 1024;

/** Free pages above this share of the file make compaction rewrite it (VACUUM). */
const REWRITE_FREE_SHARE = 0.25;

/** Key prefixes that may be deleted, oldest first, to meet the cap; the outbox and conversations never are. */
const EVICTABLE = ["deadletter"] as const;

/** What one compaction round did (spec 4.2 `mon_storage_*`). */
export interface CompactionReport {
  readonly fileBytes: number;
  readonly freeBytes: number;
  readonly evicted: number;
  readonly rewritten: boolean;
  /** Never-evicted data alone keeps the file over its cap (health `storage_over_cap`). */
  readonly overCap: boolean;
}

/**
 * One compaction round of the state file (spec 7.3, 9.2; "compaction", not the maintenance windows of suppression): while it is over `capBytes`, the oldest evictable
 * records (dead letters) are deleted and the file is rewritten; a file with a quarter or more free pages is
 * rewritten too. `overCap` when only never-evicted data (outbox, conversations) remains and it is still over.
 * Nothing for the memory store.
 */
export async function compactStore(store: StateStore, capBytes: number): Promise<CompactionReport> {
  if (!store.persistent) return { fileBytes: 0, freeBytes: 0, evicted: 0, rewritten: false, overCap: false };
  let size = await store.size();
  let evicted = 0;
  let rewritten = false;
  if (size.fileBytes > capBytes) {
    for (const prefix of EVICTABLE) {
      const keys = await store.keys(prefix);
      // Delete a tenth at a time, oldest first, then measure again after a rewrite.
      while (keys.length > 0 && size.fileBytes > capBytes) {
        for (const k of keys.splice(0, Math.max(1, Math.ceil(keys.length / 10)))) {
          await store.remove(k);
          evicted++;
        }
        await store.compact();
        rewritten = true;
        size = await store.size();
      }
    }
  }
  if (!rewritten && size.fileBytes > 0 && size.freeBytes / size.fileBytes >= REWRITE_FREE_SHARE) {
    await store.compact();
    rewritten = true;
    size = await store.size();
  }
  return {
    fileBytes: size.fileBytes,
    freeBytes: size.freeBytes,
    evicted,
    rewritten,
    overCap: size.fileBytes > capBytes,
  };
}
