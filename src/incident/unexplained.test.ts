import { describe, expect, test } from "bun:test";
import type { Finding } from "../model/finding.ts";
import type { Incident } from "../model/incident.ts";
import { isUnexplained } from "./unexplained.ts";

const finding = (reason: string): Finding => ({
  key: `${reason}/Deployment/shop/api`,
  reason,
  object: { kind: "Deployment", namespace: "shop", name: "api" },
  tier: "high",
  summary: reason,
  evidence: [],
  since: 0,
});
const incident = (...reasons: string[]): Incident => ({
  id: "Deployment/shop/api",
  root: { kind: "Deployment", namespace: "shop", name: "api" },
  rootReason: reasons[0]!,
  tier: "high",
  mode: "notify",
  findings: reasons.map(finding),
  openedAt: 0,
  phase: "open",
  told: [],
  dedupKey: "k",
  revision: 1,
});

describe("unexplained incidents (mon_unexplained_total{kind=incident})", () => {
  test("an incident saying only what is down is unexplained", () => {
    expect(isUnexplained(incident("WorkloadUnavailable", "ReadinessProbeFailing"))).toBe(true);
  });
  test("one finding naming a cause explains it", () => {
    expect(isUnexplained(incident("WorkloadUnavailable", "CrashLoopBackOff"))).toBe(false);
    expect(isUnexplained(incident("NodeLost"))).toBe(false);
  });
});
