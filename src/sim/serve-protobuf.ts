import type { IncomingMessage, ServerResponse } from "node:http";
import { encodeMessage, envelope, watchFrame } from "../kube/protobuf/encode.ts";
import { PROTOBUF_TYPE, PROTOBUF_WATCH_TYPE } from "../kube/protobuf/envelope.ts";
import { KIND_MESSAGES, type ProtoSchema } from "../kube/protobuf/schema.ts";
import schemaJson from "../kube/protobuf/schema.generated.json" with { type: "json" };
import type { ResourceType } from "./resources.ts";
import type { KubeObject } from "./store.ts";

/**
 * Lists and watches in protobuf, as kube-apiserver v1.32 serves built-in kinds to a client that asks for it
 * first (client-go's `Accept: application/vnd.kubernetes.protobuf, application/json`): the list as one envelope
 * (`k8s\0` + runtime.Unknown), a watch as length-prefixed frames of meta.v1.WatchEvent. Custom resources have no
 * protobuf form: they are served JSON whatever comes first (issue 55).
 */

const schema = schemaJson as unknown as ProtoSchema;

/**
 * The protobuf message to serve `type` in, when the request's Accept names protobuf before any other type it
 * accepts and the kind has one; undefined for JSON.
 */
export function protobufMessageFor(req: IncomingMessage, type: ResourceType, apiVersion: string): string | undefined {
  const first = String(req.headers.accept ?? "")
    .split(",")
    .map((m) => m.split(";")[0]?.trim())
    .find((m) => m === PROTOBUF_TYPE || m === "application/json" || m === "*/*" || m === "application/yaml");
  if (first !== PROTOBUF_TYPE) return undefined;
  return KIND_MESSAGES[`${apiVersion}/${type.kind}`];
}

/** Sends a list (`metadata`, items without apiVersion or kind) as one protobuf envelope; `garbled`, as bytes that are not. */
export function sendProtobufList(
  res: ServerResponse,
  type: ResourceType,
  apiVersion: string,
  message: string,
  list: { metadata: Record<string, unknown>; items: readonly Record<string, unknown>[] },
  garbled = false,
): void {
  const raw = encodeMessage(schema, `${message}List`, list as Record<string, unknown>);
  const body = garbled ? new TextEncoder().encode("k8s?not protobuf") : envelope(apiVersion, `${type.kind}List`, raw);
  res.writeHead(200, {
    "Content-Type": PROTOBUF_TYPE,
    "Cache-Control": "no-cache, private",
    "Audit-Id": crypto.randomUUID(),
    "Content-Length": body.length,
  });
  res.end(body);
}

/** The content type of a protobuf watch stream. */
export const WATCH_CONTENT_TYPE = PROTOBUF_WATCH_TYPE;

/**
 * One watch event as a protobuf frame: the object in its kind's message, a Status for an ERROR; `garbled`, an
 * object whose first field claims more bytes than there are (a frame that does not decode).
 */
export function protobufFrame(
  type: string,
  object: KubeObject,
  message: string,
  apiVersion: string,
  garbled = false,
): Uint8Array {
  const { kind: _k, apiVersion: _a, ...fields } = object as Record<string, unknown>;
  if (garbled)
    return watchFrame(type, envelope(apiVersion, String(object.kind ?? ""), Uint8Array.of(0x0a, 0x7f, 0x01)));
  if (type === "ERROR")
    return watchFrame(
      type,
      envelope("v1", "Status", encodeMessage(schema, "k8s.io.apimachinery.pkg.apis.meta.v1.Status", fields)),
    );
  return watchFrame(type, envelope(apiVersion, String(object.kind ?? ""), encodeMessage(schema, message, fields)));
}
