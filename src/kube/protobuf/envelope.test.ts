import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Shape } from "../../model/projection.ts";
import { SHAPES } from "../../model/shapes.ts";
import { project } from "../project.ts";
import { ProtobufPlans } from "./decode.ts";
import { encodeMessage, envelope, watchFrame } from "./encode.ts";
import { decodeList, WatchFrames } from "./envelope.ts";
import type { ProtoSchema } from "./schema.ts";
import schemaJson from "./schema.generated.json" with { type: "json" };
import { ProtobufError } from "./wire.ts";

const schema = schemaJson as unknown as ProtoSchema;
const shapeOf = (kind: string) => (SHAPES as Record<string, Shape>)[kind] ?? true;

function pod(name: string, restarts: number): Record<string, unknown> {
  return {
    metadata: {
      name,
      namespace: "shop",
      uid: `uid-${name}`,
      resourceVersion: String(100 + restarts),
      creationTimestamp: "2026-12-01T10:00:00Z",
      labels: { app: "api" },
      managedFields: [
        {
          manager: "kubelet",
          operation: "Update",
          time: "2026-12-01T10:00:05Z",
          fieldsType: "FieldsV1",
          fieldsV1: { "f:status": {} },
        },
      ],
    },
    // An empty struct that is no pointer is written `{}`, as the API server's JSON has it.
    spec: {
      containers: [{ name: "api", image: "ghcr.io/shop/api:1.0", args: ["--port", "8080"], resources: {} }],
      nodeName: "n1",
    },
    status: {
      phase: "Running",
      containerStatuses: [
        {
          name: "api",
          ready: restarts === 0,
          restartCount: restarts,
          image: "ghcr.io/shop/api:1.0",
          imageID: "",
          state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 40s" } },
          lastState: {},
        },
      ],
    },
  };
}

const projected = (o: Record<string, unknown>) => {
  const {
    kind: _k,
    apiVersion: _a,
    ...rest
  } = project("Pod", { ...o, kind: "Pod", apiVersion: "v1" } as never) as Record<string, unknown>;
  return rest;
};

describe("kube-apiserver's protobuf answers (issue 55)", () => {
  const plans = new ProtobufPlans(schema);

  test("a list: its resourceVersion, continue token and items, each projected", () => {
    const items = [pod("api-1", 0), pod("api-2", 4)];
    const raw = encodeMessage(schema, "k8s.io.api.core.v1.PodList", {
      metadata: { resourceVersion: "812", continue: "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ" },
      items,
    });
    const list = decodeList(envelope("v1", "PodList", raw), plans, shapeOf);
    expect(list.resourceVersion).toBe("812");
    expect(list.continue).toBe("eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ");
    expect(list.items).toEqual(items.map(projected) as never);
  });

  test("a watch stream cut anywhere: the same events, in order, with apiVersion and kind", () => {
    const events = [
      ["ADDED", pod("api-1", 0)],
      ["MODIFIED", pod("api-1", 1)],
      ["DELETED", pod("api-1", 2)],
    ] as const;
    const stream = Uint8Array.from(
      events.flatMap(([type, o]) => [
        ...watchFrame(type, envelope("v1", "Pod", encodeMessage(schema, "k8s.io.api.core.v1.Pod", o))),
      ]),
    );
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 12 }), (cuts) => {
        const frames = new WatchFrames(plans, shapeOf);
        const bounds = [0, ...[...cuts].sort((a, b) => a - b), stream.length];
        const got = bounds.slice(1).flatMap((end, i) => frames.push(stream.subarray(bounds[i], end)));
        expect(got).toEqual(
          events.map(([type, o]) => ({ type, object: { apiVersion: "v1", kind: "Pod", ...projected(o) } })) as never,
        );
      }),
    );
  });

  test("a watch's ERROR event is a Status, read whole; a frame that is not an envelope is a ProtobufError", () => {
    const status = encodeMessage(schema, "k8s.io.apimachinery.pkg.apis.meta.v1.Status", {
      status: "Failure",
      message: "too old resource version: 1 (812)",
      reason: "Expired",
      code: 410,
    });
    const [event] = new WatchFrames(plans, shapeOf).push(watchFrame("ERROR", envelope("v1", "Status", status)));
    expect(event?.type).toBe("ERROR");
    expect(event?.object).toMatchObject({ kind: "Status", code: 410, reason: "Expired" });
    expect(() => new WatchFrames(plans, shapeOf).push(watchFrame("ADDED", Uint8Array.from([1, 2, 3, 4])))).toThrow(
      ProtobufError,
    );
  });
});
