import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { pagerContract } from "../testing/provider-suite.ts";
import spike, { spikeTitle } from "./spike.ts";

describe("spike", () => {
  pagerContract({
    definition: spike,
    options: (b) => ({ webhookUrl: `${b}/spk-secret-1/push-events` }),
    invalid: [[{}, "webhookUrl is required"]],
    secret: "spk-secret-1",
    path: "/spk-secret-1/push-events",
    // Spike keys incidents on the title: it carries the dedup key and never changes.
    dedup: (b) =>
      b.title.startsWith("[mon-prod-deployment-shop-api-page]") ? "mon-prod-deployment-shop-api-page" : b.title,
    status: (b) => b.status,
    expected: ["trigger", "trigger", "resolve"],
  });

  test("the title is the same for every message of an incident, whatever its counts", () => {
    const a = spikeTitle(message("x", "announce", { title: "3 pods", dedupKey: "k" }));
    const b = spikeTitle(message("x", "update", { title: "9 pods", dedupKey: "k" }));
    expect(a).toBe(b);
  });
});
