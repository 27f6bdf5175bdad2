import { existsSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { createDatabase, type Database } from "db0";
import { createStorage, type Storage } from "unstorage";
import db0Driver from "unstorage/drivers/db0";
import { sqliteConnector } from "../runtime/sqlite.ts";

/** Version of the state file's layout (spec 9.2). A file with another version is set aside. */
export const SCHEMA_VERSION = 1;

/** The state file's name under MON_DATA_DIR (spec 1.9). */
export const STATE_FILE = "state.db";

/** Why a state file was set aside (`mon_storage_resets_total{reason}`, spec 4.2). */
export type ResetReason = "schema_mismatch" | "unreadable";

/** What a store reports while it works; each callback is optional. */
export interface StoreHooks {
  /** The file was set aside as `state.db.corrupt` and recreated. */
  reset?(reason: ResetReason, detail: string): void;
  /** A write failed; the caller's data lives on in memory only. */
  writeFailed?(key: string, error: Error): void;
  /** A write succeeded (after a failure, storage works again). */
  wrote?(key: string): void;
}

/**
 * Where mon keeps what must survive a restart (spec 1.9): the outbox, conversation ids, dead letters.
 * Values are JSON. `persistent` is false for the memory store (Community).
 */
export interface StateStore {
  readonly persistent: boolean;
  get(key: string): Promise<unknown>;
  /** Writes one value; resolves false (and reports `writeFailed`) when the write failed. */
  set(key: string, value: unknown): Promise<boolean>;
  remove(key: string): Promise<void>;
  /** Keys starting with `prefix`, sorted. */
  keys(prefix: string): Promise<string[]>;
  /** Bytes of the state file, and of its free pages (0 for memory). */
  size(): Promise<{ fileBytes: number; freeBytes: number }>;
  /** Rewrites the file to give free pages back (SQLite VACUUM); nothing for memory. */
  compact(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the state store (spec 1.9). Without `dataDir`: in memory (Community). With it (Pro): one SQLite file
 * `<dataDir>/state.db` through unstorage's db0 driver (Bun's SQLite under Bun, `node:sqlite` elsewhere). The
 * file carries its schema version; a file with another version, or one that cannot be read, is renamed
 * `state.db.corrupt` (replacing an older one), a fresh file is created, and `hooks.reset` says why. Never
 * throws for a bad file; throws Error when the directory cannot be written at all.
 */
export async function openStateStore(options: { dataDir?: string; hooks?: StoreHooks } = {}): Promise<StateStore> {
  if (!options.dataDir) return memoryStore();
  const path = join(options.dataDir, STATE_FILE);
  const existed = existsSync(path) && statSync(path).size > 0;
  let opened = await tryOpen(path);
  let problem: { reason: ResetReason; detail: string } | undefined;
  if ("error" in opened) problem = { reason: "unreadable", detail: opened.error };
  else if (existed && opened.version !== SCHEMA_VERSION)
    problem = {
      reason: "schema_mismatch",
      detail: `schema version ${opened.version ?? "none"}, expected ${SCHEMA_VERSION}`,
    };
  if (problem) {
    if (!("error" in opened)) await opened.db.dispose();
    renameSync(path, `${path}.corrupt`);
    for (const suffix of ["-wal", "-shm"])
      if (existsSync(path + suffix)) renameSync(path + suffix, `${path}.corrupt${suffix}`);
    options.hooks?.reset?.(problem.reason, problem.detail);
    opened = await tryOpen(path);
    if ("error" in opened) throw new Error(`cannot create ${path}: ${opened.error}`);
  }
  if ("error" in opened) throw new Error(`cannot open ${path}: ${opened.error}`);
  const { db } = opened;
  await db.sql`INSERT INTO mon_meta (key, value) VALUES ('schema', ${String(SCHEMA_VERSION)}) ON CONFLICT(key) DO UPDATE SET value = ${String(SCHEMA_VERSION)}`;
  // unstorage's db0 driver warns once that it is experimental; the flag it checks keeps mon's log clean.
  (globalThis as Record<string, unknown>).__unstorage_db0_experimental_warning__ = true;
  const storage = createStorage({ driver: db0Driver({ database: db, tableName: "mon_state" }) });
  return fileStore(storage, db, path, options.hooks);
}

// --- internal ---

async function tryOpen(path: string): Promise<{ db: Database; version: number | undefined } | { error: string }> {
  let db: Database | undefined;
  try {
    db = createDatabase(await sqliteConnector(path));
    await db.exec("PRAGMA journal_mode = WAL");
    await db.exec("CREATE TABLE IF NOT EXISTS mon_meta (key TEXT PRIMARY KEY, value TEXT)");
    const verdict = String(await pragma(db, "quick_check"));
    if (verdict !== "ok") throw new Error(`integrity check: ${verdict}`);
    const { rows } = await db.sql`SELECT value FROM mon_meta WHERE key = 'schema'`;
    const raw = rows?.[0]?.value;
    return { db, version: raw === undefined ? undefined : Number(raw) };
  } catch (error) {
    await Promise.resolve(db?.dispose()).catch(() => {});
    return { error: (error as Error).message };
  }
}

/** The single value a PRAGMA answers. */
async function pragma(db: Database, name: string): Promise<unknown> {
  const row = (await db.prepare(`PRAGMA ${name}`).get()) as Record<string, unknown> | undefined;
  return row ? Object.values(row)[0] : undefined;
}

function memoryStore(): StateStore {
  const storage = createStorage();
  return {
    persistent: false,
    get: (key) => storage.getItem(key),
    async set(key, value) {
      await storage.setItem(key, value as never);
      return true;
    },
    remove: (key) => storage.removeItem(key),
    keys: async (prefix) => (await storage.getKeys(prefix)).sort(),
    size: async () => ({ fileBytes: 0, freeBytes: 0 }),
    compact: async () => {},
    close: () => storage.dispose(),
  };
}

function fileStore(storage: Storage, db: Database, path: string, hooks: StoreHooks | undefined): StateStore {
  return {
    persistent: true,
    get: (key) => storage.getItem(key),
    async set(key, value) {
      try {
        await storage.setItem(key, JSON.stringify(value));
        hooks?.wrote?.(key);
        return true;
      } catch (error) {
        hooks?.writeFailed?.(key, error as Error);
        return false;
      }
    },
    remove: (key) => storage.removeItem(key),
    keys: async (prefix) => (await storage.getKeys(prefix)).sort(),
    async size() {
      const pageSize = Number(await pragma(db, "page_size")) || 4096;
      const pages = Number(await pragma(db, "page_count")) || 0;
      const free = Number(await pragma(db, "freelist_count")) || 0;
      const onDisk = existsSync(path)
        ? statSync(path).size + (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0)
        : 0;
      return { fileBytes: Math.max(onDisk, pages * pageSize), freeBytes: free * pageSize };
    },
    async compact() {
      await db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      await db.exec("VACUUM");
    },
    async close() {
      await storage.dispose();
      // Fold the write-ahead log back into the file, so a closed store is one self-contained file.
      await Promise.resolve(db.exec("PRAGMA wal_checkpoint(TRUNCATE)")).catch(() => {});
      await db.dispose();
    },
  };
}
