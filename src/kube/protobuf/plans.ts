import type { Shape } from "../../model/projection.ts";
import { SHAPES } from "../../model/shapes.ts";
import { ProtobufPlans } from "./decode.ts";
import { KIND_MESSAGES, type ProtoSchema } from "./schema.ts";
import schemaJson from "./schema.generated.json" with { type: "json" };

/** The decoding plans of this process: one per message and shape, built on first use (issue 55). */
export const PLANS = new ProtobufPlans(schemaJson as unknown as ProtoSchema);

/** What a metadata-only kind keeps (kube/object-filter.ts metadataOnly). */
const METADATA_ONLY: Shape = Object.freeze({ metadata: true });

/**
 * The shape to decode a watched kind's protobuf into, or undefined when the API server serves it only as JSON
 * (custom resources, a version the schema does not have). `path` is the kind's collection path
 * (`/apis/apps/v1/deployments`), `metadataOnly` a kind mon keeps only the metadata of. protobufRead adds
 * whether it is the kind's declared projection.
 */
export function protobufShape(path: string, kind: string, metadataOnly: boolean): Shape | undefined {
  const apiVersion = path.startsWith("/api/") ? "v1" : path.split("/").slice(2, 4).join("/");
  if (!KIND_MESSAGES[`${apiVersion}/${kind}`]) return undefined;
  return metadataOnly ? METADATA_ONLY : ((SHAPES as Record<string, Shape>)[kind] ?? true);
}

/**
 * How an informer reads a watched kind in protobuf (kube/informer.ts `protobuf`): this process's plans, the shape
 * (protobufShape), and whether that shape is the kind's declared projection, so decoded objects are not projected
 * again. Undefined when the kind is served only as JSON.
 */
export function protobufRead(
  path: string,
  kind: string,
  metadataOnly: boolean,
): { plans: ProtobufPlans; shape: Shape; projected: boolean } | undefined {
  const shape = protobufShape(path, kind, metadataOnly);
  if (shape === undefined) return undefined;
  return { plans: PLANS, shape, projected: (SHAPES as Record<string, Shape | undefined>)[kind] === shape };
}
