import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HealthRegistry } from "../health/registry.ts";
import { createMetrics } from "../metrics.ts";
import { createFakeClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { openStateStore } from "../state/store.ts";
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
