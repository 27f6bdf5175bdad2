import { describe, expect, test } from "bun:test";
import type { Finding } from "../model/finding.ts";
import type { KubeObject } from "../model/inventory.ts";
import { inventoryOf } from "../testing/inventory.ts";
import { suppressionOf, suppressionText, prepareRules, type DeliveryRules } from "./suppress.ts";

const NOW = Date.parse("2026-06-01T12:00:00Z");
const f = (over: Partial<Finding> = {}): Finding => ({
  key: "k",
  reason: "CrashLoopBackOff",
  object: { kind: "Pod", namespace: "shop", name: "api-7c9-x2kq9" },
  container: "app",
  tier: "medium",
  summary: "container app is crash-looping: dial tcp 10.0.0.5:5432: connection refused",
  evidence: [{ label: "exit code", value: "1 (Error)" }],
  since: 0,
  ...over,
});
const ns = (
  name: string,
  labels: Record<string, string> = {},
  annotations: Record<string, string> = {},
): KubeObject => ({ kind: "Namespace", apiVersion: "v1", metadata: { name, labels, annotations } });
const inventory = inventoryOf(
  ns("shop", { team: "payments" }),
  ns("dev", { team: "web" }),
  ns("ops", {}, { "mon.io/maintenance": "Yes" }),
  {
    kind: "Pod",
    apiVersion: "v1",
    metadata: {
      namespace: "shop",
      name: "held-pod",
      annotations: { "mon.io/maintenance": "true", "mon.io/maintenance-until": "2026-06-01T13:00:00Z" },
    },
  },
  {
    kind: "Pod",
    apiVersion: "v1",
    metadata: {
      namespace: "shop",
      name: "expired",
      annotations: { "mon.io/maintenance": "on", "mon.io/maintenance-until": "2026-06-01T11:00:00Z" },
    },
  },
);
const none: DeliveryRules = { silences: [] };
const hold = (finding: Finding, rules: Partial<DeliveryRules>) =>
  suppressionOf(finding, inventory, prepareRules({ ...none, ...rules }), NOW);
const node = f({
  reason: "NodeNotReady",
  object: { kind: "Node", name: "n1" },
  container: undefined,
  summary: "node n1 is NotReady: PLEG is not healthy",
  evidence: [{ label: "condition", value: "Ready=False (KubeletNotReady)" }],
});

describe("scope (spec 1.4, 2.1)", () => {
  test("namespaces: an include list, or an exclude list of ! entries; cluster-scoped findings are outside an include list", () => {
    expect(hold(f(), { namespaces: ["shop"] })).toBeUndefined();
    expect(hold(f(), { namespaces: ["dev"] })).toBe("out_of_scope");
    expect(hold(f(), { namespaces: ["!shop"] })).toBe("out_of_scope");
    expect(hold(f(), { namespaces: ["!dev"] })).toBeUndefined();
    expect(hold(node, { namespaces: ["shop"] })).toBe("out_of_scope");
    expect(hold(node, { namespaces: ["!dev"] })).toBeUndefined();
  });

  test("namespaceSelector by labels and expressions", () => {
    expect(hold(f(), { namespaceSelector: { matchLabels: { team: "payments" } } })).toBeUndefined();
    expect(
      hold(f(), {
        namespaceSelector: { matchExpressions: [{ key: "team", operator: "NotIn", values: ["payments"] }] },
      }),
    ).toBe("out_of_scope");
  });

  test("reasons: include or exclude, any letter case", () => {
    expect(hold(f(), { reasons: ["crashloopbackoff"] })).toBeUndefined();
    expect(hold(f(), { reasons: ["OOMKilled"] })).toBe("out_of_scope");
    expect(hold(f(), { reasons: ["!CrashLoopBackOff"] })).toBe("out_of_scope");
  });
});

describe("silences (spec 2.2)", () => {
  const cases: [string, Partial<import("./suppress.ts").SilenceRule>, Finding, boolean][] = [
    ["namespaces", { namespaces: ["shop"] }, f(), true],
    ["reasons, any case", { reasons: ["crashloopbackoff"] }, f(), true],
    ["podNamePatterns (regular expressions)", { podNamePatterns: ["^api-"] }, f(), true],
    ["podNamePatterns never match a node", { podNamePatterns: [".*"] }, node, false],
    ["containerNames", { containerNames: ["app"] }, f(), true],
    [
      "containerMessages search summary and evidence (case-sensitive)",
      { containerMessages: ["connection refused"] },
      f(),
      true,
    ],
    ["containerMessages are case-sensitive", { containerMessages: ["Connection Refused"] }, f(), false],
    [
      "eventMessages only for event-backed findings",
      { eventMessages: ["timed out"] },
      f({
        reason: "FailedMount",
        evidence: [
          { label: "event", value: "FailedMount" },
          { label: "message", value: "timed out waiting for the condition" },
        ],
      }),
      true,
    ],
    ["nodeReasons", { nodeReasons: ["KubeletNotReady"] }, node, true],
    ["nodeMessages", { nodeMessages: ["PLEG"] }, node, true],
    ["every field set must match", { namespaces: ["shop"], reasons: ["OOMKilled"] }, f(), false],
  ];
  for (const [name, rule, finding, silenced] of cases) {
    test(name, () => expect(hold(finding, { silences: [rule] })).toBe(silenced ? "silenced" : undefined));
  }
});

describe("maintenance (spec 2.7)", () => {
  const rules = { maintenance: { annotation: "mon.io/maintenance", untilAnnotation: "mon.io/maintenance-until" } };
  test("truthy annotation on the object, bounded by -until; on the namespace; expired holds release", () => {
    expect(hold(f({ object: { kind: "Pod", namespace: "shop", name: "held-pod" } }), rules)).toBe("maintenance");
    expect(hold(f({ object: { kind: "Pod", namespace: "shop", name: "expired" } }), rules)).toBeUndefined();
    expect(hold(f({ object: { kind: "Pod", namespace: "ops", name: "x" } }), rules)).toBe("maintenance");
    expect(hold(f(), rules)).toBeUndefined();
  });

  test("mon explain says where the maintenance is written and until when, and which silence rule", () => {
    const why = (finding: Finding, r: Partial<DeliveryRules>) =>
      suppressionText(finding, inventory, prepareRules({ ...none, ...r }), NOW);
    expect(why(f({ object: { kind: "Pod", namespace: "shop", name: "held-pod" } }), rules)).toBe(
      "under maintenance: annotation mon.io/maintenance on pod held-pod until 2026-06-01T13:00:00Z",
    );
    expect(why(f({ object: { kind: "Pod", namespace: "ops", name: "x" } }), rules)).toBe(
      "under maintenance: annotation mon.io/maintenance on namespace ops",
    );
    const silences = [{ reasons: ["OOMKilled"] }, { namespaces: ["shop"] }];
    expect(why(f(), { silences, silenceSources: ["config.yaml:4", "config.yaml:6"] })).toBe(
      "silenced by config.yaml:6",
    );
    expect(why(f(), { silences })).toBe("silenced by silences[1]");
  });

  test("without the Pro setting (no maintenance rules) annotations do nothing", () => {
    expect(hold(f({ object: { kind: "Pod", namespace: "ops", name: "x" } }), {})).toBeUndefined();
  });
});
