import { describe, expect, test } from "bun:test";
import type { Finding } from "../model/finding.ts";
import { message } from "../testing/messages.ts";
import { problemsOf, routesMatch } from "./routes.ts";

const podIn = (namespace: string, reason = "PodNodeLost"): Finding => ({
  key: `${reason}/Pod/${namespace}/p`,
  reason,
  object: { kind: "Pod", namespace, name: "p" },
  tier: "normal",
  summary: "",
  evidence: [],
  since: 0,
});
/** A lost node (no namespace of its own) with pods of billing and shop. */
const nodeLost = (extra = {}) =>
  message("Node//n1", "announce", {
    root: { kind: "Node", name: "n1" },
    reason: "NodeLost",
    findings: [podIn("billing"), podIn("shop")],
    ...extra,
  });

describe("routes match any finding (spec 2.4): an incident spanning namespaces reaches each team's route", () => {
  test("a route on shop gets a lost node whose first finding is in billing", () => {
    expect(routesMatch([{ namespaces: ["shop"] }], problemsOf(nodeLost()))).toBe(true);
    expect(routesMatch([{ namespaces: ["ops"] }], problemsOf(nodeLost()))).toBe(false);
  });

  test("owners: the owner of any finding's object, case-insensitively", () => {
    const owned = nodeLost({ owner: "team-platform", owners: ["team-platform", "team-payments"] });
    expect(routesMatch([{ owners: ["TEAM-PAYMENTS"] }], problemsOf(owned))).toBe(true);
    expect(routesMatch([{ owners: ["team-search"] }], problemsOf(owned))).toBe(false);
  });

  test("every field a route sets must still match: namespace and reason together", () => {
    const routes = [{ namespaces: ["shop"], reasons: ["CrashLoopBackOff"] }];
    expect(routesMatch(routes, problemsOf(nodeLost()))).toBe(false);
    expect(routesMatch([{ namespaces: ["shop"], reasons: ["podnodelost"] }], problemsOf(nodeLost()))).toBe(true);
  });
});
