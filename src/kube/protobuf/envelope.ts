import type { Shape } from "../../model/projection.ts";
import { isAdmissible, markAdmissible } from "../admit.ts";
import { decodeMessage, type ProtobufPlans } from "./decode.ts";
import { KIND_MESSAGES } from "./schema.ts";
import { LENGTH, ProtobufError, text, WireReader } from "./wire.ts";

/**
 * kube-apiserver's protobuf answers (issue 55; k8s.io/apimachinery runtime/serializer/protobuf): every object or
 * list is `k8s\0` and a runtime.Unknown holding its apiVersion, kind and raw message; a watch
 * (`;stream=watch`) is frames of a 4-byte big-endian length and a meta.v1.WatchEvent whose object is such an
 * envelope. Decoded straight into the kind's declared projection.
 */

/** The media type of protobuf objects and lists, and of a watch stream of them. */
export const PROTOBUF_TYPE = "application/vnd.kubernetes.protobuf";
export const PROTOBUF_WATCH_TYPE = "application/vnd.kubernetes.protobuf;stream=watch";

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

/** The projection of each kind, by kind: `true` keeps the object whole. */
export type ShapeOfKind = (kind: string) => Shape;

/** A decoded list: the list's resourceVersion and continue token, and its items (without apiVersion or kind, as JSON). */
export interface DecodedList {
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly items: Record<string, unknown>[];
}

/** A decoded watch event: its type and its object (with apiVersion and kind, as JSON). */
export interface DecodedEvent {
  readonly type: string;
  readonly object: Record<string, unknown>;
}

/**
 * The apiVersion, kind and raw message bounds of the envelope in `buf[start, end)`. Throws ProtobufError when it
 * does not start with the magic bytes or is not a runtime.Unknown.
 */
export function openEnvelope(
  buf: Uint8Array,
  start = 0,
  end = buf.length,
): { apiVersion: string; kind: string; raw: [number, number] } {
  for (let i = 0; i < 4; i++)
    if (buf[start + i] !== MAGIC[i]) throw new ProtobufError("not a Kubernetes protobuf envelope", start + i);
  const r = new WireReader(buf, start + 4, end);
  let apiVersion = "";
  let kind = "";
  let raw: [number, number] = [r.pos, r.pos];
  while (r.pos < r.end) {
    const tag = r.varint();
    const wire = tag & 7;
    if (tag >>> 3 === 1 && wire === LENGTH) {
      const meta = new WireReader(buf, ...r.span());
      while (meta.pos < meta.end) {
        const t = meta.varint();
        if ((t & 7) !== LENGTH) meta.skip(t & 7);
        else if (t >>> 3 === 1) apiVersion = text(buf, ...meta.span());
        else if (t >>> 3 === 2) kind = text(buf, ...meta.span());
        else meta.skip(LENGTH);
      }
    } else if (tag >>> 3 === 2 && wire === LENGTH) raw = r.span();
    else r.skip(wire);
  }
  return { apiVersion, kind, raw };
}

/**
 * Decodes a protobuf list answer under each item's kind's shape. Throws ProtobufError on bytes that are not
 * a list of a kind the schema has; an item that does not decode is given to `onUndecodable` and left out (without
 * it, it throws).
 */
export function decodeList(
  buf: Uint8Array,
  plans: ProtobufPlans,
  shapeOf: ShapeOfKind,
  options: { onUndecodable?: (error: ProtobufError) => void } = {},
): DecodedList {
  const { apiVersion, kind, raw } = openEnvelope(buf);
  const itemKind = kind.replace(/List$/, "");
  const message = KIND_MESSAGES[`${apiVersion}/${itemKind}`];
  if (!message || itemKind === kind) throw new ProtobufError(`no protobuf list ${apiVersion}/${kind}`, 0);
  const plan = plans.plan(message, shapeOf(itemKind));
  const r = new WireReader(buf, raw[0], raw[1]);
  let resourceVersion = "";
  let cont: string | undefined;
  const items: Record<string, unknown>[] = [];
  while (r.pos < r.end) {
    const tag = r.varint();
    const wire = tag & 7;
    if (tag >>> 3 === 2 && wire === LENGTH) {
      const [s, e] = r.span();
      // An item is its own length: one that does not decode is set aside, the others are read.
      if (!options.onUndecodable) items.push(decodeMessage(buf, s, e, plan));
      else
        try {
          items.push(decodeMessage(buf, s, e, plan));
        } catch (error) {
          if (!(error instanceof ProtobufError)) throw error;
          options.onUndecodable(error);
        }
    } else if (tag >>> 3 === 1 && wire === LENGTH) {
      const meta = new WireReader(buf, ...r.span());
      while (meta.pos < meta.end) {
        const t = meta.varint();
        if ((t & 7) !== LENGTH) meta.skip(t & 7);
        else if (t >>> 3 === 2) resourceVersion = text(buf, ...meta.span());
        else if (t >>> 3 === 3) cont = text(buf, ...meta.span()) || undefined;
        else meta.skip(LENGTH);
      }
    } else r.skip(wire);
  }
  return { resourceVersion, ...(cont ? { continue: cont } : {}), items };
}

/**
 * Decodes one enveloped object under its kind's shape, with its apiVersion and kind. A Status (a watch's ERROR
 * event) is decoded whole. Throws ProtobufError on bytes that are not such an object.
 */
export function decodeObject(
  buf: Uint8Array,
  start: number,
  end: number,
  plans: ProtobufPlans,
  shapeOf: ShapeOfKind,
): Record<string, unknown> {
  const { apiVersion, kind, raw } = openEnvelope(buf, start, end);
  const message =
    kind === "Status" ? "k8s.io.apimachinery.pkg.apis.meta.v1.Status" : KIND_MESSAGES[`${apiVersion}/${kind}`];
  if (!message) throw new ProtobufError(`no protobuf kind ${apiVersion}/${kind}`, start);
  const object = decodeMessage(buf, raw[0], raw[1], plans.plan(message, kind === "Status" ? true : shapeOf(kind)));
  const whole = { apiVersion, kind, ...object };
  // Its apiVersion and kind named a known message: strings within the door's rules, so the mark carries over.
  return isAdmissible(object) ? markAdmissible(whole) : whole;
}

/**
 * Splits a protobuf watch stream into events as its chunks arrive (a frame may span chunks, a chunk may hold
 * many frames). `push` returns the events complete so far; a frame that does not decode is given to
 * `onUndecodable` and skipped (without it, it throws ProtobufError).
 */
export class WatchFrames {
  private pending = new Uint8Array(0);
  constructor(
    private readonly plans: ProtobufPlans,
    private readonly shapeOf: ShapeOfKind,
    private readonly options: { onUndecodable?: (error: ProtobufError) => void } = {},
  ) {}

  push(chunk: Uint8Array): DecodedEvent[] {
    const buf = this.pending.length ? concat(this.pending, chunk) : chunk;
    const events: DecodedEvent[] = [];
    let at = 0;
    while (buf.length - at >= 4) {
      const length = new DataView(buf.buffer, buf.byteOffset + at, 4).getUint32(0);
      if (buf.length - at - 4 < length) break;
      const end = at + 4 + length;
      // A frame is its own length: one that does not decode is set aside, the stream goes on.
      if (!this.options.onUndecodable) events.push(this.event(buf, at + 4, end));
      else
        try {
          events.push(this.event(buf, at + 4, end));
        } catch (error) {
          if (!(error instanceof ProtobufError)) throw error;
          this.options.onUndecodable(error);
        }
      at = end;
    }
    this.pending = at === buf.length ? new Uint8Array(0) : buf.slice(at);
    return events;
  }

  private event(buf: Uint8Array, start: number, end: number): DecodedEvent {
    const r = new WireReader(buf, start, end);
    let type = "";
    let object: Record<string, unknown> | undefined;
    while (r.pos < r.end) {
      const tag = r.varint();
      const wire = tag & 7;
      if (tag >>> 3 === 1 && wire === LENGTH) type = text(buf, ...r.span());
      else if (tag >>> 3 === 2 && wire === LENGTH) {
        // A RawExtension: its raw bytes (field 1) are the enveloped object.
        const ext = new WireReader(buf, ...r.span());
        while (ext.pos < ext.end) {
          const t = ext.varint();
          if (t >>> 3 === 1 && (t & 7) === LENGTH) {
            const [s, e] = ext.span();
            object = decodeObject(buf, s, e, this.plans, this.shapeOf);
          } else ext.skip(t & 7);
        }
      } else r.skip(wire);
    }
    if (!object) throw new ProtobufError(`watch event ${type || "?"} without an object`, start);
    return { type, object };
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
