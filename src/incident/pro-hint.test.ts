import { describe, expect, test } from "bun:test";
import type { Finding } from "../model/finding.ts";
import type { Incident } from "../model/incident.ts";
import { inventoryOf } from "../testing/inventory.ts";
import { proHintFor } from "./pro-hint.ts";

const NOW = Date.UTC(2026, 5, 1);
const ctx = {
  inactiveProviders: ["pagerduty", "webhook"],
  maintenance: { annotation: "mon.io/maintenance", untilAnnotation: "mon.io/maintenance-until" },
  severityReasons: new Set(["crashloopbackoff"]),
};
const finding = { object: { kind: "Pod", namespace: "shop", name: "api-1" }, reason: "CrashLoopBackOff" } as Finding;
const incident = (rootReason = "ImagePullBackOff") =>
  ({
    root: { kind: "Deployment", namespace: "shop", name: "api" },
    rootReason,
    findings: [finding],
  }) as unknown as Incident;
const deployment = (annotations: Record<string, string> = {}) => ({
  kind: "Deployment",
  metadata: { namespace: "shop", name: "api", annotations },
});

describe("the one-line Pro hint of Community messages", () => {
  test("names the other providers Pro would also tell", () => {
    expect(proHintFor(incident(), inventoryOf(deployment()), ctx, NOW)).toBe(
      "With Pro, this would also go to pagerduty, webhook.",
    );
  });

  test("a maintenance annotation Pro would honour comes first", () => {
    const ns = { kind: "Namespace", metadata: { name: "shop", annotations: { "mon.io/maintenance": "true" } } };
    expect(proHintFor(incident(), inventoryOf(deployment(), ns), ctx, NOW)).toBe(
      "With Pro, the maintenance annotation on namespace shop would hold this back.",
    );
  });

  test("then an acknowledgement, then a severity override", () => {
    expect(proHintFor(incident(), inventoryOf(deployment({ "mon.io/ack": "on it" })), ctx, NOW)).toBe(
      "With Pro, mon.io/ack on deployment api would acknowledge this.",
    );
    expect(proHintFor(incident("CrashLoopBackOff"), inventoryOf(deployment()), ctx, NOW)).toBe(
      "With Pro, severityByReason would rate CrashLoopBackOff as configured.",
    );
  });

  test("nothing to add, no line", () => {
    expect(
      proHintFor(
        incident(),
        inventoryOf(deployment()),
        { ...ctx, inactiveProviders: [], severityReasons: new Set() },
        NOW,
      ),
    ).toBeUndefined();
  });
});
