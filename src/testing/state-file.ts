import { join } from "node:path";
import { createDatabase } from "db0";
import { sqliteConnector } from "../runtime/sqlite.ts";
import { STATE_FILE } from "../state/store.ts";

/**
 * One value of a running mon's state file (`<dataDir>/state.db`), read beside it as a second SQLite reader
 * (the file is in WAL mode, so this never blocks the daemon's writes): the parsed JSON, or undefined when the
 * key is not there (yet). For end-to-end tests that must know a write landed before they kill the process.
 */
export async function storedValue(dataDir: string, key: string): Promise<unknown> {
  const db = createDatabase(await sqliteConnector(join(dataDir, STATE_FILE)));
  try {
    const { rows } = await db.sql`SELECT value FROM mon_state WHERE key = ${key}`;
    const raw = rows?.[0]?.value;
    return typeof raw === "string" ? JSON.parse(raw) : undefined;
  } catch {
    return undefined;
  } finally {
    await db.dispose();
  }
}
