import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { SHAPES } from "../../model/shapes.ts";
import { decodeMessage, ProtobufPlans } from "./decode.ts";
import { encodeMessage } from "./encode.ts";
import type { ProtoSchema } from "./schema.ts";
import schemaJson from "./schema.generated.json" with { type: "json" };
import { ProtobufError, WireReader } from "./wire.ts";

const schema = schemaJson as unknown as ProtoSchema;
const POD = "k8s.io.api.core.v1.Pod";

describe("the protobuf wire (issue 55)", () => {
  test("varints: any int64 a Kubernetes object holds, negative ones in ten bytes, read back exactly", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 53n) + 1n, max: 2n ** 53n - 1n }), (n) => {
        const bytes = encodeMessage(schema, "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", {
          generation: Number(n),
        });
        const plan = new ProtobufPlans(schema).plan("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", true);
        const decoded = decodeMessage(bytes, 0, bytes.length, plan);
        expect(decoded.generation ?? 0).toBe(Number(n));
      }),
    );
  });

  test("an odd or hostile frame is a ProtobufError naming the byte, never another error, a hang or a crash", () => {
    const plans = new ProtobufPlans(schema);
    const plan = plans.plan(POD, SHAPES.Pod);
    const pod = encodeMessage(schema, POD, {
      metadata: { name: "api-1", namespace: "shop", labels: { app: "api" } },
      spec: { containers: [{ name: "api", image: "ghcr.io/shop/api:1.0" }], nodeName: "n1" },
      status: { phase: "Running", containerStatuses: [{ name: "api", ready: true, restartCount: 3 }] },
    });
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 64 }),
          // A real pod cut short, or with bytes changed.
          fc.nat({ max: pod.length - 1 }).map((n) => pod.subarray(0, n)),
          fc.tuple(fc.nat({ max: pod.length - 1 }), fc.integer({ min: 0, max: 255 })).map(([at, b]) => {
            const copy = pod.slice();
            copy[at] = b;
            return copy;
          }),
        ),
        (bytes) => {
          try {
            decodeMessage(bytes, 0, bytes.length, plan);
          } catch (error) {
            expect(error).toBeInstanceOf(ProtobufError);
            expect((error as ProtobufError).message).toMatch(/at byte \d+$/);
          }
        },
      ),
      { numRuns: Number(process.env.MON_PROPERTY_RUNS ?? 2_000) },
    );
  });

  test("a negative length (ten bytes of two's complement) is refused, never read backwards (a hang)", () => {
    const negative = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
    const plan = new ProtobufPlans(schema).plan(POD, SHAPES.Pod);
    // metadata (field 1, length-delimited) whose length is -1.
    const bytes = Uint8Array.from([0x0a, ...negative, 0x0a, 0x00]);
    expect(() => decodeMessage(bytes, 0, bytes.length, plan)).toThrow(/length -1 past the end/);
  });

  test("a length past the end, a varint past ten bytes and a group are refused", () => {
    expect(() => new WireReader(Uint8Array.from([0x05, 1, 2])).span()).toThrow(/length 5 past the end at byte 1/);
    expect(() => new WireReader(new Uint8Array(11).fill(0xff)).varint()).toThrow(/longer than ten bytes/);
    expect(() => new WireReader(Uint8Array.from([0])).skip(3)).toThrow(/wire type 3 is not read/);
  });
});
