import { describe, expect, test } from "bun:test";
import type { Finding } from "../model/finding.ts";
import { incidentTier } from "../incident/tiers.ts";
import { overrideSeverity, severityOverrides } from "./overrides.ts";

const crash: Finding = {
  key: "k",
  reason: "CrashLoopBackOff",
  object: { kind: "Pod", namespace: "shop", name: "api-1" },
  tier: "medium",
  summary: "crash",
  evidence: [],
  since: 0,
};
const lost: Finding = {
  ...crash,
  reason: "NodeLost",
  object: { kind: "Node", name: "n1" },
  tier: "critical",
  pageRule: "P3",
};

describe("severity overrides (spec 2.1, 3.2; Pro)", () => {
  test("severityByReason is checked before severityByOwnerKind; keys in any case", () => {
    const o = severityOverrides({ crashloopbackoff: "warning" }, { deployment: "high" });
    expect(overrideSeverity(crash, "Deployment", o).tier).toBe("warning");
    expect(overrideSeverity({ ...crash, reason: "OOMKilled" }, "Deployment", o).tier).toBe("high");
    expect(overrideSeverity({ ...crash, reason: "OOMKilled" }, "StatefulSet", o)).toEqual({
      ...crash,
      reason: "OOMKilled",
    });
  });

  test("an override to critical pages; an override below it silences a built-in page rule", () => {
    const paged = overrideSeverity(crash, "Deployment", severityOverrides({ CrashLoopBackOff: "critical" }));
    expect(incidentTier([paged])).toEqual({ tier: "critical", mode: "page", pageRule: "severityByReason" });
    const quiet = overrideSeverity(lost, "Node", severityOverrides({}, { node: "warning" }));
    expect(incidentTier([quiet])).toEqual({ tier: "warning", mode: "notify" });
  });

  test("when several findings match, the loudest wins", () => {
    const o = severityOverrides({ CrashLoopBackOff: "warning", OOMKilled: "high" });
    expect(
      incidentTier([
        overrideSeverity(crash, "Deployment", o),
        overrideSeverity({ ...crash, key: "k2", reason: "OOMKilled" }, "Deployment", o),
      ]).tier,
    ).toBe("high");
  });
});
