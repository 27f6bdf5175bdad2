import { sortKeys } from "../../testing/sort-keys.ts";
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Shape } from "../../model/projection.ts";
import { SHAPES } from "../../model/shapes.ts";
import { admit, MAX_TEXT } from "../admit.ts";
import { project } from "../project.ts";
import { decodeMessage } from "./decode.ts";
import { encodeMessage } from "./encode.ts";
import { PLANS } from "./plans.ts";
import { KIND_MESSAGES, type ProtoSchema } from "./schema.ts";
import schemaJson from "./schema.generated.json" with { type: "json" };

/**
 * The Inventory's door and the protobuf decoder agree on objects no recording holds (issue 55): any object of
 * any watched kind the schema can carry — odd strings (long, non-ASCII, empty), zero times, long lists, fields
 * set or not — decoded under its kind's shape is exactly what the door keeps of the same object read whole and
 * projected; and it is admitted without the door's walk only when the door would not change it.
 */
const schema = schemaJson as unknown as ProtoSchema;

const TIME = "k8s.io.apimachinery.pkg.apis.meta.v1.Time";
const MICROTIME = "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime";
const SKIPPED = new Set([
  "k8s.io.apimachinery.pkg.runtime.RawExtension",
  "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1",
  "k8s.io.apimachinery.pkg.apis.meta.v1.Duration",
]);

const text = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("", "web", "True", "Ready", "kube-system", "ghcr.io/shop/api:1.0") },
  { weight: 2, arbitrary: fc.string({ maxLength: 40, unit: "grapheme" }) },
  { weight: 1, arbitrary: fc.nat({ max: 3 }).map((n) => "é".repeat(MAX_TEXT - 2 + n)) },
);

/** A random value of a protobuf field as JSON holds it, `depth` levels deep. */
function value(type: string, depth: number): fc.Arbitrary<unknown> {
  if (type === TIME)
    return fc.oneof(
      fc.constant(null),
      fc.integer({ min: 0, max: 4e9 }).map((s) => `${new Date(s * 1000).toISOString().slice(0, 19)}Z`),
    );
  if (type === MICROTIME)
    return fc.integer({ min: 0, max: 4e9 }).map((s) => `${new Date(s * 1000).toISOString().slice(0, 19)}.123456Z`);
  if (type === "k8s.io.apimachinery.pkg.util.intstr.IntOrString")
    return fc.oneof(fc.nat({ max: 65535 }), fc.constantFrom("http", "50%"));
  if (type === "k8s.io.apimachinery.pkg.api.resource.Quantity") return fc.constantFrom("100m", "64Mi", "1");
  if (schema.messages[type]) return message(type, depth + 1);
  switch (type) {
    case "string":
      return text;
    case "bool":
      return fc.boolean();
    case "bytes":
      return fc.uint8Array({ maxLength: 8 }).map((b) => btoa(String.fromCharCode(...b)));
    case "double":
    case "float":
      return fc.constantFrom(0, 0.5, 2);
    default:
      return fc.integer({ min: 0, max: 100_000 });
  }
}

function message(name: string, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const fields = (schema.messages[name] ?? []).filter(([, , type]) => !SKIPPED.has(type));
  if (depth > 5) return fc.constant({});
  const entries: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [, field, type, rule, json] of fields) {
    if (json.includes("i")) continue;
    const one = value(type, depth);
    entries[field] =
      rule === "repeated"
        ? fc.oneof(
            { weight: 5, arbitrary: fc.array(one, { maxLength: 3 }) },
            { weight: 1, arbitrary: fc.constant(null) },
          )
        : rule === "map"
          ? fc.dictionary(fc.constantFrom("app", "tier", "a/b", ""), one, { maxKeys: 3 })
          : one;
  }
  return fc.record(entries, { requiredKeys: [] });
}

describe("the Inventory's door and the protobuf decoder (issue 55)", () => {
  const kinds = Object.entries(KIND_MESSAGES).map(([key, message]) => ({
    kind: key.split("/").pop() as string,
    message,
  }));
  test("any object of any watched kind: decoded under its shape is what the door keeps of it, admitted as decoded only when the door would change nothing", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...kinds).chain(({ kind, message: name }) =>
          message(name, 0).map((object) => ({
            kind,
            name,
            object: { ...object, metadata: { ...(object.metadata as object), name: "x" } },
          })),
        ),
        ({ kind, name, object }) => {
          const bytes = encodeMessage(schema, name, object);
          // The object as the API server's JSON holds it, read whole from the same bytes.
          const json = decodeMessage(bytes, 0, bytes.length, PLANS.plan(name, true));
          const shape = (SHAPES as Record<string, Shape>)[kind] ?? true;
          const decoded = decodeMessage(bytes, 0, bytes.length, PLANS.plan(name, shape));
          const door = admit(project(kind, structuredClone(json) as never)) as { object?: unknown };
          const admitted = admit(decoded) as { object?: unknown };
          expect(sortKeys(admitted.object)).toEqual(sortKeys(door.object));
        },
      ),
      { numRuns: Number(process.env.MON_PROPERTY_RUNS ?? 300) },
    );
  }, 120_000);

  test("every watched kind with a declared shape decodes within the door's rules but CronJob: no kind pays the door's walk for a field the door would drop anyway", () => {
    const unsafe = kinds
      .filter(({ kind }) => (SHAPES as Record<string, Shape | undefined>)[kind] !== undefined)
      .filter(({ kind, message: name }) => !PLANS.plan(name, (SHAPES as Record<string, Shape>)[kind]!).doorSafe())
      .map(({ kind }) => kind);
    // A CronJob's whole job template may hold a pod failure policy's exit codes (`values`, numbers), which the
    // door reads as a list of strings and keeps empty: only its walk can say so.
    expect(unsafe).toEqual(["CronJob"]);
  });
});
