import type { KubeObject } from "../model/inventory.ts";
import type { Shape } from "../model/projection.ts";
import { SHAPES } from "../model/shapes.ts";
import { encodeMessage, envelope } from "../kube/protobuf/encode.ts";
import { decodeObject } from "../kube/protobuf/envelope.ts";
import { PLANS } from "../kube/protobuf/plans.ts";
import { KIND_MESSAGES, type ProtoSchema } from "../kube/protobuf/schema.ts";
import schemaJson from "../kube/protobuf/schema.generated.json" with { type: "json" };

const schema = schemaJson as unknown as ProtoSchema;

/**
 * `object` as mon reads it from a protobuf answer (issue 55): encoded in its kind's message and enveloped as
 * kube-apiserver v1.32 serves it, then decoded straight into the kind's declared shape (model/shapes.ts), as
 * the informer does. A kind with no protobuf form (a custom resource) is returned as it is: it stays JSON.
 */
export function throughProtobuf(object: KubeObject): KubeObject {
  const apiVersion = String(object.apiVersion ?? "");
  const kind = String(object.kind ?? "");
  const message = KIND_MESSAGES[`${apiVersion}/${kind}`];
  if (!message) return object;
  const bytes = envelope(apiVersion, kind, encodeMessage(schema, message, object as Record<string, unknown>));
  const shapeOf = (k: string) => (SHAPES as Record<string, Shape | undefined>)[k] ?? true;
  return decodeObject(bytes, 0, bytes.length, PLANS, shapeOf) as KubeObject;
}
