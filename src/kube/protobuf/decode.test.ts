import { pathsApart, sortKeys } from "../../testing/sort-keys.ts";
import { describe, expect, test } from "bun:test";
import type { Shape } from "../../model/projection.ts";
import { SHAPES } from "../../model/shapes.ts";
import { recordedObjects } from "../../testing/recorded-objects.ts";
import { admit, isAdmissible } from "../admit.ts";
import { project } from "../project.ts";
import { decodeMessage, goDuration, ProtobufPlans } from "./decode.ts";
import { encodeMessage, envelope } from "./encode.ts";
import { decodeObject } from "./envelope.ts";
import { KIND_MESSAGES, type ProtoSchema } from "./schema.ts";
import schemaJson from "./schema.generated.json" with { type: "json" };

const schema = schemaJson as unknown as ProtoSchema;
/** The message of a built-in kind, by kind alone (each is served in one version). */
const messageOf = (kind: string) => Object.entries(KIND_MESSAGES).find(([key]) => key.endsWith(`/${kind}`))?.[1];

describe("protobuf decoded straight into the declared projection (issue 55)", () => {
  const plans = new ProtobufPlans(schema);
  test("every recorded v1.32 object: encoded as kube-apiserver does, decoded under its kind's shape, is what the Inventory keeps of its JSON, admitted without the door's walk", () => {
    // As the API server served them (not the bodies clients sent), in the version the schema has.
    const objects = recordedObjects().filter(
      (o) =>
        messageOf(o.kind) &&
        o.metadata.resourceVersion &&
        o.metadata.creationTimestamp &&
        (o.apiVersion === undefined || KIND_MESSAGES[`${o.apiVersion}/${o.kind}`]) &&
        // An events.k8s.io/v1 Event listed without its apiVersion (mon watches core v1 Events).
        !(o.kind === "Event" && "regarding" in o),
    );
    expect(objects.length).toBeGreaterThan(100);
    const differ: string[] = [];
    for (const object of objects) {
      const kind = object.kind;
      const message = messageOf(kind) as string;
      const bytes = encodeMessage(schema, message, object);
      const shape = (SHAPES as Record<string, Shape>)[kind] ?? true;
      const decoded = decodeMessage(bytes, 0, bytes.length, plans.plan(message, shape));
      // What the Inventory keeps of the JSON: parsed, projected, through its door (kube/admit.ts).
      const { kind: _k, apiVersion: _a, ...projected } = kept(project(kind, structuredClone(object)));
      if (JSON.stringify(sortKeys(decoded)) !== JSON.stringify(sortKeys(projected)))
        differ.push(`${kind} ${JSON.stringify(pathsApart(projected, decoded, ["json", "protobuf"])).slice(0, 400)}`);
      // Decoded within the door's rules: admitted as it is, without the door's walk — also as the informer gets it,
      // enveloped with its apiVersion and kind (CronJob's template may hold what only the walk judges: door.test.ts).
      const key = Object.keys(KIND_MESSAGES).find((k) => KIND_MESSAGES[k] === message && k.endsWith(`/${kind}`))!;
      const enveloped = envelope(key.slice(0, -kind.length - 1), kind, bytes);
      const served = decodeObject(enveloped, 0, enveloped.length, plans, () => shape);
      if (kind !== "CronJob" && !(isAdmissible(decoded) && isAdmissible(served)))
        differ.push(`${kind}: not admitted as decoded`);
      if ((admit(decoded) as { object?: unknown }).object !== decoded) differ.push(`${kind}: not admitted as decoded`);
      // And read whole: every field of every message, as JSON has it.
      const whole = decodeMessage(bytes, 0, bytes.length, plans.plan(message, true));
      const { kind: _k2, apiVersion: _a2, ...all } = kept(withoutTemplateTypeMeta(structuredClone(object)));
      if (JSON.stringify(sortKeys(kept(whole))) !== JSON.stringify(sortKeys(all)))
        differ.push(`${kind} whole ${JSON.stringify(pathsApart(all, whole, ["json", "protobuf"])).slice(0, 400)}`);
    }
    expect(differ).toEqual([]);
  });

  test("Go's durations", () => {
    expect([0, 1500, 1_500_000, 2e9, 90e9, 3.6e12 + 2.5e9].map(goDuration)).toEqual([
      "0s",
      "1.5µs",
      "1.5ms",
      "2s",
      "1m30s",
      "1h0m2.5s",
    ]);
  });
});

/**
 * A StatefulSet's volumeClaimTemplates keep the apiVersion and kind a client wrote in JSON; protobuf has no place
 * for them (a PersistentVolumeClaim message has no TypeMeta), so kube-apiserver's own protobuf loses them too.
 * mon's shape does not keep them.
 */
function withoutTemplateTypeMeta(o: Record<string, unknown>): Record<string, unknown> {
  const spec = o.spec as { volumeClaimTemplates?: Record<string, unknown>[] } | undefined;
  if (!spec?.volumeClaimTemplates) return o;
  return {
    ...o,
    spec: {
      ...spec,
      volumeClaimTemplates: spec.volumeClaimTemplates.map(({ kind: _k, apiVersion: _a, ...t }) => t),
    },
  };
}

/** What the Inventory's door admits of `o` (kube/admit.ts). */
function kept(o: Record<string, unknown>): Record<string, unknown> {
  const admitted = admit(o);
  if (!("object" in admitted)) throw new Error(`not admitted: ${admitted.unreadable}`);
  return admitted.object as Record<string, unknown>;
}
