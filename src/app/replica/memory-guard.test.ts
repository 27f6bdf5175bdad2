import { describe, expect, test } from "bun:test";
import { createMetrics } from "../../metrics.ts";
import { createFakeClock } from "../../runtime/clock.ts";
import { createConsola } from "consola";
import { MEMORY_CHECK_MS, startMemoryGuard } from "./memory-guard.ts";

const MiB = 2 ** 20;

describe("the soft memory limit (spec 8)", () => {
  test("above the limit a collection is forced and counted, said once per episode; under 90 % of it the episode ends", async () => {
    const clock = createFakeClock(0);
    const metrics = createMetrics();
    const said: string[] = [];
    const logger = createConsola({ level: 3, reporters: [{ log: (entry) => void said.push(String(entry.args[0])) }] });
    let rss = 500 * MiB;
    let collections = 0;
    const guard = startMemoryGuard({
      softLimitBytes: 900 * MiB,
      clock,
      logger,
      metrics,
      read: () => rss,
      collect: () => {
        collections += 1;
        rss -= 50 * MiB;
      },
    });
    await clock.advance(MEMORY_CHECK_MS);
    expect(collections).toBe(0);
    rss = 1000 * MiB;
    await clock.advance(MEMORY_CHECK_MS);
    rss = 1000 * MiB;
    await clock.advance(MEMORY_CHECK_MS);
    expect(collections).toBe(2);
    expect(said).toEqual([
      "memory: 1000 MiB resident is above the soft limit of 900 MiB; forced a garbage collection (now 950 MiB)",
    ]);
    rss = 700 * MiB;
    await clock.advance(MEMORY_CHECK_MS);
    expect(said.at(-1)).toBe("memory: 700 MiB resident, back under the soft limit of 900 MiB");
    // Before the limit (issue 30): from 80 % of it on, a collection when the resident set grew, and nothing is
    // said; a resident set that stays where it is costs no more collections.
    rss = 760 * MiB;
    await clock.advance(MEMORY_CHECK_MS);
    expect(collections).toBe(3);
    rss = 730 * MiB; // 20 MiB over what the last collection left: not worth another
    await clock.advance(MEMORY_CHECK_MS);
    await clock.advance(MEMORY_CHECK_MS);
    expect(collections).toBe(3);
    rss = 800 * MiB; // 90 MiB over the 710 MiB the last collection left: grown more than 5 % of the limit
    await clock.advance(MEMORY_CHECK_MS);
    expect(collections).toBe(4);
    rss = 710 * MiB;
    await clock.advance(MEMORY_CHECK_MS);
    expect(collections).toBe(4);
    expect(said).toHaveLength(2);
    const text = await metrics.registry.metrics();
    expect(text).toContain("mon_memory_pressure_total 4");
    expect(text).toContain(`mon_memory_soft_limit_bytes ${900 * MiB}`);
    guard.stop();
  });
});
