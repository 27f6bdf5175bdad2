import { describe, expect, test } from "bun:test";
import { createConsola } from "consola";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HealthRegistry } from "../../health/registry.ts";
import { createMetrics } from "../../metrics.ts";
import { createFakeClock } from "../../runtime/clock.ts";
import { createSilentLogger } from "../../runtime/logger.ts";
import { openStateStore } from "../../state/store.ts";
import { openDaemonState } from "./state.ts";

describe("the state moves with the edition (docs/license.md)", () => {
  test("Pro → Community moves every record to memory and empties the file; Community → Pro moves them back", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "mon-state-"));
    const clock = createFakeClock(Date.UTC(2026, 5, 1));
    const state = await openDaemonState({
      dataDir,
      persistent: true,
      clock,
      logger: createSilentLogger(),
      metrics: createMetrics(),
      health: new HealthRegistry(() => clock.now()),
    });
    await state.store.set("conversation:Deployment/shop/api", { thread: "1234.5678" });
    await state.usePersistent(false);
    expect(state.store.persistent).toBe(false);
    expect(await state.store.get("conversation:Deployment/shop/api")).toEqual({ thread: "1234.5678" });
    const file = await openStateStore({ dataDir });
    expect(await file.keys("conversation:")).toEqual([]);
    await file.close();
    await state.usePersistent(true);
    expect(state.store.persistent).toBe(true);
    expect(await state.store.get("conversation:Deployment/shop/api")).toEqual({ thread: "1234.5678" });
    await state.close();
  });
});

describe("a state file mon cannot write (spec 7.3 persistence_write_failed)", () => {
  test("another process holding the file's write lock: storage degraded, said once for 60 failed writes and counted, writes resume once it lets go", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "mon-state-"));
    const clock = createFakeClock(Date.UTC(2026, 5, 1));
    const metrics = createMetrics();
    const health = new HealthRegistry(() => clock.now());
    const said: string[] = [];
    const state = await openDaemonState({
      dataDir,
      persistent: true,
      clock,
      logger: createConsola({ level: 3, reporters: [{ log: (entry) => void said.push(String(entry.args[0])) }] }),
      metrics,
      health,
    });
    expect(health.report().components.storage).toMatchObject({ state: "ok" });
    // A backup tool or a second pod on a shared volume takes SQLite's write lock on state.db.
    const { Database } = await import("bun:sqlite");
    const other = new Database(join(dataDir, "state.db"));
    other.exec("BEGIN EXCLUSIVE");
    for (let i = 0; i < 60; i++)
      expect(await state.store.set(`conversation:Deployment/shop/api-${i}`, { thread: "1" })).toBe(false);
    expect(health.report().components.storage).toMatchObject({ state: "degraded", reason: "persistence_write_failed" });
    expect((await metrics.registry.getSingleMetric("mon_storage_write_failures_total")?.get())?.values[0]?.value).toBe(
      60,
    );
    // A full disk fails every write: one line says so, not one per write (issue 30).
    expect(said.filter((line) => line.includes("failed"))).toEqual([
      expect.stringMatching(
        /^state store: writing conversation:Deployment\/shop\/api-0 failed: .*\(kept in memory; further failures are counted in mon_storage_write_failures_total, not logged\)$/,
      ),
    ]);
    other.exec("COMMIT");
    other.close();
    expect(await state.store.set("conversation:Deployment/shop/api", { thread: "2" })).toBe(true);
    expect(health.report().components.storage).toMatchObject({ state: "ok" });
    expect(said.at(-1)).toBe("state store: writes succeed again (60 failed meanwhile)");
    await state.close();
  });
});
