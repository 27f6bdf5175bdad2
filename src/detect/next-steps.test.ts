import { describe, expect, test } from "bun:test";
import { DEPENDENCY_UNREACHABLE } from "../correlate/endpoints.ts";
import { NODE_HEARTBEAT_GAP } from "../correlate/heartbeat-gap.ts";
import { NAMESPACE_OUTAGE } from "../correlate/namespace-outage.ts";
import { SHARED_ERROR } from "../correlate/shared-errors.ts";
import { REASONS } from "./catalogue.ts";
import { NEXT_STEPS, nextStepsFor } from "./next-steps.ts";

/** Next steps (spec 2.1 runbooks): every reason an incident can be rooted at says what to do first. */
describe("next steps", () => {
  test("every catalogue reason and every correlator root has one or two steps, only with known placeholders", () => {
    for (const reason of [
      ...REASONS.map((r) => r.reason),
      DEPENDENCY_UNREACHABLE,
      SHARED_ERROR,
      NAMESPACE_OUTAGE,
      NODE_HEARTBEAT_GAP,
    ]) {
      const steps = NEXT_STEPS[reason];
      expect(steps?.length, reason).toBeGreaterThanOrEqual(1);
      expect(steps!.length, reason).toBeLessThanOrEqual(2);
      for (const step of steps!)
        expect(step.replace(/\{(namespace|name|kind|container)\}/g, ""), reason).not.toMatch(/\{[a-z]+\}/);
    }
    expect(Object.keys(NEXT_STEPS).sort()).toEqual(
      [
        ...REASONS.map((r) => r.reason),
        DEPENDENCY_UNREACHABLE,
        SHARED_ERROR,
        NAMESPACE_OUTAGE,
        NODE_HEARTBEAT_GAP,
      ].sort(),
    );
  });

  test("placeholders are filled from the object; a step needing a missing value is left out", () => {
    const pod = { kind: "Pod", namespace: "shop", name: "api-0" };
    expect(nextStepsFor("CrashLoopBackOff", pod, "api")[0]).toBe("kubectl -n shop logs api-0 -c api --previous");
    expect(nextStepsFor("CrashLoopBackOff", pod)).toHaveLength(1);
    expect(nextStepsFor("ProgressDeadlineExceeded", { kind: "Deployment", namespace: "shop", name: "api" })[0]).toBe(
      "kubectl -n shop rollout status deployment/api",
    );
    expect(nextStepsFor("NoSuchReason", pod)).toEqual([]);
  });

  test("an init container, shown as 'name (init)' in a finding, is named to kubectl by its name", () => {
    const pod = { kind: "Pod", namespace: "shop", name: "api-0" };
    expect(nextStepsFor("InitContainerFailed", pod, "wait-for-db (init)")[0]).toBe(
      "kubectl -n shop logs api-0 -c wait-for-db --previous",
    );
  });
});
