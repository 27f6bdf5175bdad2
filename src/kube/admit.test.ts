import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { admit, MAX_TEXT } from "./admit.ts";
import { Inventory } from "./inventory.ts";

const pod = (over: Record<string, unknown>) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { namespace: "shop", name: "p", uid: "u1", resourceVersion: "1" },
  spec: { containers: [{ name: "app", image: "img:1" }] },
  status: { phase: "Running" },
  ...over,
});

describe("the Inventory's door (issue 19): objects in the narrow shape detectors read", () => {
  test("fields of the wrong shape are dropped, not passed on", () => {
    const admitted = admit(
      pod({
        metadata: { namespace: "shop", name: "p", labels: null, annotations: { ok: "yes", n: 5, o: { a: 1 } } },
        spec: null,
        status: {
          phase: 5,
          conditions: [null, 3, { type: 5, status: {} }, { type: "Ready", status: "False" }],
          containerStatuses: { a: 1 },
        },
      }),
    );
    expect(admitted).toEqual({
      object: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { namespace: "shop", name: "p", annotations: { ok: "yes" } },
        status: { conditions: [{ type: "Ready", status: "False" }] },
      },
    });
  });

  test("no list mon keeps holds a null entry, whatever field it is in (an Ingress's spec.tls: [null], issue 30)", () => {
    const nulls = (value: unknown): boolean =>
      Array.isArray(value)
        ? value.some((item) => item === null || nulls(item))
        : typeof value === "object" && value !== null && Object.values(value).some(nulls);
    // Any JSON with nulls sprinkled into its lists, under the fields objects have.
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.constant(null),
        fc.string({ maxLength: 4 }),
        fc.integer(),
        tie("list"),
        tie("object"),
      ),
      list: fc.array(fc.oneof(fc.constant(null), tie("value")), { maxLength: 4 }),
      object: fc.dictionary(
        fc.constantFrom("tls", "rules", "volumes", "containers", "ports", "items", "secretName", "hosts", "x"),
        tie("value"),
        { maxKeys: 4 },
      ),
    }));
    fc.assert(
      fc.property(json.object, json.object, (spec, status) => {
        const admitted = admit({
          apiVersion: "networking.k8s.io/v1",
          kind: "Ingress",
          metadata: { namespace: "a", name: "b" },
          spec,
          status,
        });
        expect("object" in admitted && nulls(admitted.object)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  test("a 1 MB message is cut to 4,096 characters; a lone surrogate becomes U+FFFD", () => {
    const admitted = admit(
      pod({
        status: {
          containerStatuses: [
            { name: "app", lastState: { terminated: { exitCode: 1, message: "x".repeat(1_000_000) } } },
            { name: "b", lastState: { terminated: { exitCode: 1, message: "bad \uD800 end" } } },
          ],
        },
      }),
    ) as { object: { status: { containerStatuses: { lastState: { terminated: { message: string } } }[] } } };
    const [a, b] = admitted.object.status.containerStatuses;
    expect(a!.lastState.terminated.message).toHaveLength(MAX_TEXT);
    expect(b!.lastState.terminated.message).toBe("bad \uFFFD end");
    expect(() => JSON.stringify(admitted)).not.toThrow();
  });

  test("an EndpointSlice keeps its string addresses and its conditions object", () => {
    const slice = {
      kind: "EndpointSlice",
      metadata: { namespace: "shop", name: "s" },
      endpoints: [{ addresses: ["10.0.0.1"], conditions: { ready: true } }],
    };
    expect(admit(slice)).toEqual({ object: slice });
  });

  test("an object without a name is unreadable; the Inventory lists it and keeps nothing of it", () => {
    expect(admit(null)).toEqual({ unreadable: "not_an_object" });
    expect(admit({ metadata: { name: 7 } })).toEqual({ unreadable: "no_name" });
    const inventory = new Inventory();
    const key = inventory.apply("Pod", "ADDED", { kind: "Pod", metadata: { namespace: "shop" } } as never);
    expect(inventory.unreadableObjects().get(key)).toBe("no_name");
    expect(inventory.list("Pod")).toEqual([]);
  });
});
