import { describe, expect, test } from "bun:test";
import { selects, selectsAll } from "./label-selector.ts";

const labels = { app: "api", tier: "backend" };

describe("label selectors (metav1.LabelSelector)", () => {
  test.each([
    ["empty", {}, true],
    ["matchLabels equal", { matchLabels: { app: "api" } }, true],
    ["matchLabels differ", { matchLabels: { app: "web" } }, false],
    ["In", { matchExpressions: [{ key: "app", operator: "In", values: ["api", "web"] }] }, true],
    ["In, key absent", { matchExpressions: [{ key: "team", operator: "In", values: ["x"] }] }, false],
    ["NotIn", { matchExpressions: [{ key: "app", operator: "NotIn", values: ["api"] }] }, false],
    ["NotIn, key absent", { matchExpressions: [{ key: "team", operator: "NotIn", values: ["x"] }] }, true],
    ["Exists", { matchExpressions: [{ key: "tier", operator: "Exists" }] }, true],
    ["DoesNotExist", { matchExpressions: [{ key: "tier", operator: "DoesNotExist" }] }, false],
    ["unknown operator", { matchExpressions: [{ key: "app", operator: "Gt", values: ["1"] }] }, false],
  ])("%s", (_, selector, want) => {
    expect(selects(selector, labels)).toBe(want);
  });

  test("an empty selector selects all", () => {
    expect(selectsAll({})).toBe(true);
    expect(selectsAll(undefined)).toBe(true);
    expect(selectsAll({ matchExpressions: [{ key: "a", operator: "Exists" }] })).toBe(false);
  });
});
