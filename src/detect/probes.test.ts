import { describe, expect, test } from "bun:test";
import type { ProbeStatus } from "../model/probe.ts";
import { inventoryOf } from "../testing/inventory.ts";
import { detectProbes } from "./probes.ts";

const NOW = Date.parse("2026-01-01T01:00:00Z");
const storefront = {
  kind: "http" as const,
  name: "storefront",
  origin: "configured" as const,
  address: "https://shop.example.test/healthz",
  latencyWarningMs: 800,
  latencyCriticalMs: 3_000,
};

describe("active probe findings (Pro, spec 2.3)", () => {
  test.each([
    [1_200, "warning", "ActiveProbeSlow", "warning", 800],
    [4_500, "critical", "ActiveProbeTooSlow", "high", 3_000],
  ] as const)("an answer in %i ms is %s: %s (%s)", (latencyMs, slow, reason, tier, limit) => {
    const status: ProbeStatus = {
      target: storefront,
      failures: 0,
      since: NOW,
      last: { ok: true, latencyMs, status: 200 },
      slow,
    };
    const [f] = detectProbes(inventoryOf(), NOW, { probes: [status] });
    expect(f).toMatchObject({
      reason,
      tier,
      object: { kind: "Probe", name: "storefront" },
      summary: `http probe storefront (https://shop.example.test/healthz) answered in ${latencyMs} ms, over its ${limit} ms limit`,
    });
  });

  test("a failing autoServices probe is a finding on the Service; no probes, no findings", () => {
    const service = { kind: "Service", namespace: "shop", name: "db" };
    const status: ProbeStatus = {
      target: { kind: "tcp", name: "service/shop/db", origin: "service", address: "10.96.0.10:5432", service },
      failures: 3,
      since: NOW - 60_000,
      last: { ok: false, latencyMs: 1, error: "connection refused" },
    };
    expect(detectProbes(inventoryOf(), NOW, { probes: [status] }).map((f) => [f.reason, f.object, f.summary])).toEqual([
      [
        "ActiveProbeFailure",
        service,
        "Service shop/db (10.96.0.10:5432) is failing: connection refused (3 rounds in a row)",
      ],
    ]);
    expect(detectProbes(inventoryOf(), NOW)).toEqual([]);
  });
});
