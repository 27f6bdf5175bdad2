import { describe, expect, test } from "bun:test";
import { unchanged } from "./apply.ts";

describe("what a re-run of mon install changed (issue 43)", () => {
  const crd = (rv: string, generation: number, labels: Record<string, string> = { app: "mon" }) => ({
    kind: "CustomResourceDefinition",
    metadata: { name: "monconfigs.mon.io", resourceVersion: rv, generation, labels },
  });
  test("a controller's status write between the read and the patch is not a change of mon's; a new generation or label is", () => {
    // The real API server's apiextensions controller sets a new CRD's conditions right after it is created.
    expect(unchanged(crd("10", 1), crd("12", 1))).toBe(true);
    expect(unchanged(crd("10", 1), crd("10", 1))).toBe(true);
    expect(unchanged(crd("10", 1), crd("12", 2))).toBe(false);
    expect(unchanged(crd("10", 1), crd("12", 1, { app: "mon", tier: "x" }))).toBe(false);
    // Without a generation (a Secret, a Role) only the resourceVersion tells.
    const role = (rv: string) => ({ kind: "Role", metadata: { name: "mon", namespace: "mon", resourceVersion: rv } });
    expect(unchanged(role("3"), role("4"))).toBe(false);
  });
});
