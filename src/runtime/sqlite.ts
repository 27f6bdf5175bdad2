import type { Connector } from "db0";

/**
 * A db0 SQLite connector for the file at `path` (spec 1.9 state file): Bun's built-in SQLite under Bun,
 * `node:sqlite` elsewhere (Node.js ≥ 22.5, Deno ≥ 2.2). The only place that knows which runtime runs:
 * `bun:sqlite` is imported only under Bun.
 */
export async function sqliteConnector(path: string): Promise<Connector> {
  if ((globalThis as { Bun?: unknown }).Bun !== undefined) {
    const { default: bunSqlite } = await import("db0/connectors/bun-sqlite");
    return bunSqlite({ path });
  }
  const { default: nodeSqlite } = await import("db0/connectors/node-sqlite");
  return nodeSqlite({ path });
}
