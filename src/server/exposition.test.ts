import { describe, expect, test } from "bun:test";
import { createExposition } from "./exposition.ts";

describe("/metrics under load (issue 19: hammering /metrics must not slow /healthz)", () => {
  test("500 concurrent scrapes share one rendering; a scrape after it gets a fresh one", async () => {
    let renders = 0;
    const expose = createExposition({
      metrics: async () => {
        renders += 1;
        return `mon_up ${renders}\n`;
      },
    });
    const texts = await Promise.all(Array.from({ length: 500 }, () => expose()));
    expect(renders).toBe(1);
    expect(new Set(texts)).toEqual(new Set(["mon_up 1\n"]));
    expect(await expose()).toBe("mon_up 2\n");
  });

  test("a failed rendering is not kept: the next scrape tries again", async () => {
    let calls = 0;
    const expose = createExposition({
      metrics: async () => {
        calls += 1;
        if (calls === 1) throw new Error("collector failed");
        return "ok\n";
      },
    });
    await expect(expose()).rejects.toThrow("collector failed");
    expect(await expose()).toBe("ok\n");
  });
});
