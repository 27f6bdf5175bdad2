import type { Shape } from "../../model/projection.ts";
import type { ProtoField, ProtoSchema } from "./schema.ts";
import { base64, FIXED32, FIXED64, LENGTH, ProtobufError, text, VARINT, WireReader } from "./wire.ts";

/**
 * Decoding Kubernetes' protobuf straight into a declared projection (issue 55; model/projection.ts): a plan per
 * message and shape reads only the fields the shape keeps and skips every other by its length, and writes each
 * value as Kubernetes' JSON would — times as RFC 3339, IntOrString as a number or a string, quantities and
 * `bytes` as strings, embedded structs inlined, empty values of `omitempty` fields left out — so an object
 * decoded from protobuf equals the same object parsed from JSON and projected (decode.test.ts).
 */

/** Messages whose JSON form is not an object of their fields. */
const SPECIAL: Readonly<Record<string, Special>> = {
  "k8s.io.apimachinery.pkg.apis.meta.v1.Time": "time",
  "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime": "microtime",
  "k8s.io.apimachinery.pkg.apis.meta.v1.Duration": "duration",
  "k8s.io.apimachinery.pkg.util.intstr.IntOrString": "intorstring",
  "k8s.io.apimachinery.pkg.api.resource.Quantity": "quantity",
  "k8s.io.apimachinery.pkg.runtime.RawExtension": "raw",
  "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1": "raw",
};
type Special = "time" | "microtime" | "duration" | "intorstring" | "quantity" | "raw";

/** Go's zero time (0001-01-01T00:00:00Z) in Unix seconds: JSON writes it as null. */
const ZERO_TIME_SECONDS = -62135596800;
/** The largest time a Date holds, in seconds either side of 1970. */
const MAX_TIME_SECONDS = 8.64e12;

type Scalar = "string" | "bool" | "int" | "uint" | "sint" | "double" | "float" | "bytes";

interface FieldPlan {
  readonly name: string;
  readonly rule: ProtoField[3];
  /** Left out of JSON when empty (`omitempty` on a non-pointer). */
  readonly omitEmpty: boolean;
  /** Its fields are its parent's in JSON. */
  readonly inline: boolean;
  readonly scalar?: Scalar;
  readonly special?: Special;
  /** The plan of a message value (its item, for a list; its value, for a map). */
  readonly message?: () => MessagePlan;
  readonly key?: Scalar;
}

/** How to read one message under one shape: its kept fields by number. */
export interface MessagePlan {
  readonly fields: readonly (FieldPlan | undefined)[];
  /** Kept fields JSON writes as `null` when unset (a pointer, list or map without `omitempty`). */
  readonly nullIfAbsent: readonly string[];
}

/**
 * Plans for decoding `schema`'s messages under shapes, built once each and shared (a shape is frozen: its
 * identity is its key). Throws Error when a message is not in the schema.
 */
export class ProtobufPlans {
  private readonly cache = new Map<string, WeakMap<object, MessagePlan> | MessagePlan>();
  constructor(private readonly schema: ProtoSchema) {}

  /** The plan reading message `name` under `shape` (`true`: every field). */
  plan(name: string, shape: Shape): MessagePlan {
    if (shape === true) {
      const whole = this.cache.get(name);
      if (whole && !(whole instanceof WeakMap)) return whole;
      const made = this.build(name, true);
      this.cache.set(name, made);
      return made;
    }
    const key = `${name}#`;
    let byShape = this.cache.get(key) as WeakMap<object, MessagePlan> | undefined;
    if (!byShape) this.cache.set(key, (byShape = new WeakMap()));
    let made = byShape.get(shape);
    if (!made) byShape.set(shape, (made = this.build(name, shape)));
    return made;
  }

  private build(name: string, shape: Shape): MessagePlan {
    const fields = this.schema.messages[name];
    if (!fields) throw new Error(`no protobuf message ${name} in the schema`);
    const out: (FieldPlan | undefined)[] = [];
    const nullIfAbsent: string[] = [];
    for (const [number, field, type, rule, json, key] of fields) {
      const inline = json.includes("i");
      // An inlined struct's fields are named by the parent's shape.
      const sub: Shape | undefined = shape === true || inline ? shape : (shape as Record<string, Shape>)[field];
      if (sub === undefined) continue;
      const itemShape: Shape = Array.isArray(sub) ? (sub[0] as Shape) : sub;
      // As the JSON door does (kube/project.ts): a null where the shape reads a list or an object is dropped.
      if (json.includes("n") && sub === true) nullIfAbsent.push(field);
      const special = SPECIAL[type];
      const isMessage = !special && this.schema.messages[type] !== undefined;
      out[number] = {
        name: field,
        rule,
        omitEmpty: json.includes("e"),
        inline,
        ...(special ? { special } : {}),
        ...(isMessage ? { message: lazy(() => this.plan(type, rule === "map" ? true : itemShape)) } : {}),
        ...(!special && !isMessage ? { scalar: scalarOf(type) } : {}),
        ...(key ? { key: scalarOf(key) } : {}),
      };
    }
    return { fields: out, nullIfAbsent };
  }
}

/**
 * Decodes the message in `buf[start, end)` under `plan` into a JSON-shaped object. Throws ProtobufError when the
 * bytes are not valid protobuf or a kept field has the wrong wire type.
 */
export function decodeMessage(buf: Uint8Array, start: number, end: number, plan: MessagePlan): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  readInto(new WireReader(buf, start, end), plan, out);
  return out;
}

// --- internal ---

function readInto(r: WireReader, plan: MessagePlan, out: Record<string, unknown>): void {
  const { fields } = plan;
  for (const name of plan.nullIfAbsent) out[name] = null;
  while (r.pos < r.end) {
    const tag = r.varint();
    const number = Math.floor(tag / 8);
    const wire = tag & 7;
    const field = fields[number];
    if (!field) {
      r.skip(wire);
      continue;
    }
    if (field.rule === "map") {
      if (wire !== LENGTH) throw new ProtobufError(`map field ${field.name} with wire type ${wire}`, r.pos);
      const [s, e] = r.span();
      const map = (out[field.name] ??= {}) as Record<string, unknown>;
      readEntry(new WireReader(r.buf, s, e), field, map);
      continue;
    }
    if (field.inline) {
      if (wire !== LENGTH) throw new ProtobufError(`field ${field.name} with wire type ${wire}`, r.pos);
      const [s, e] = r.span();
      readInto(new WireReader(r.buf, s, e), (field.message as () => MessagePlan)(), out);
      continue;
    }
    if (
      field.rule === "repeated" &&
      wire === LENGTH &&
      field.scalar &&
      field.scalar !== "string" &&
      field.scalar !== "bytes"
    ) {
      // A packed list of numbers.
      const [s, e] = r.span();
      const list = (out[field.name] ??= []) as unknown[];
      const packed = new WireReader(r.buf, s, e);
      while (packed.pos < packed.end) list.push(readScalar(packed, field.scalar, VARINT));
      continue;
    }
    const value = readValue(r, field, wire);
    if (field.rule === "repeated") ((out[field.name] ??= []) as unknown[]).push(value);
    else if (!(field.omitEmpty && (value === "" || value === 0 || value === false))) out[field.name] = value;
  }
}

function readValue(r: WireReader, field: FieldPlan, wire: number): unknown {
  if (field.scalar) return readScalar(r, field.scalar, wire);
  if (wire !== LENGTH) throw new ProtobufError(`field ${field.name} with wire type ${wire}`, r.pos);
  const [s, e] = r.span();
  if (field.special) return readSpecial(r.buf, s, e, field.special);
  const out: Record<string, unknown> = {};
  readInto(new WireReader(r.buf, s, e), (field.message as () => MessagePlan)(), out);
  return out;
}

function readScalar(r: WireReader, scalar: Scalar, wire: number): unknown {
  switch (scalar) {
    case "string": {
      if (wire !== LENGTH) throw new ProtobufError(`string with wire type ${wire}`, r.pos);
      const [s, e] = r.span();
      return text(r.buf, s, e);
    }
    case "bytes": {
      if (wire !== LENGTH) throw new ProtobufError(`bytes with wire type ${wire}`, r.pos);
      const [s, e] = r.span();
      return base64(r.buf, s, e);
    }
    case "bool":
      return expectVarint(r, wire) !== 0;
    case "int":
    case "uint":
      return expectVarint(r, wire);
    case "sint": {
      const n = expectVarint(r, wire);
      return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
    }
    case "double":
      if (wire !== FIXED64) throw new ProtobufError(`double with wire type ${wire}`, r.pos);
      return r.double();
    case "float": {
      if (wire !== FIXED32) throw new ProtobufError(`float with wire type ${wire}`, r.pos);
      const at = r.pos;
      r.skip(FIXED32);
      return new DataView(r.buf.buffer, r.buf.byteOffset + at, 4).getFloat32(0, true);
    }
  }
}

function expectVarint(r: WireReader, wire: number): number {
  if (wire !== VARINT) throw new ProtobufError(`number with wire type ${wire}`, r.pos);
  return r.varint();
}

/** One map entry (key = 1, value = 2) into `map`. */
function readEntry(r: WireReader, field: FieldPlan, map: Record<string, unknown>): void {
  let key: unknown = "";
  let value: unknown = field.scalar === "string" ? "" : field.scalar ? 0 : {};
  while (r.pos < r.end) {
    const tag = r.varint();
    const wire = tag & 7;
    if (tag >>> 3 === 1) key = readScalar(r, field.key ?? "string", wire);
    else if (tag >>> 3 === 2) value = readValue(r, field, wire);
    else r.skip(wire);
  }
  map[String(key)] = value;
}

function readSpecial(buf: Uint8Array, start: number, end: number, special: Special): unknown {
  const r = new WireReader(buf, start, end);
  let a = 0;
  let b = 0;
  let s = "";
  let raw: [number, number] | undefined;
  while (r.pos < r.end) {
    const tag = r.varint();
    const wire = tag & 7;
    const n = tag >>> 3;
    if (special === "quantity" || special === "raw") {
      if (n === 1 && wire === LENGTH) raw = r.span();
      else r.skip(wire);
    } else if (special === "intorstring") {
      if (n === 1 && wire === VARINT) a = r.varint();
      else if (n === 2 && wire === VARINT) b = r.varint();
      else if (n === 3 && wire === LENGTH) {
        const [x, y] = r.span();
        s = text(buf, x, y);
      } else r.skip(wire);
    } else if (n === 1 && wire === VARINT) a = r.varint();
    else if (n === 2 && wire === VARINT) b = r.varint();
    else r.skip(wire);
  }
  if ((special === "time" || special === "microtime") && a !== ZERO_TIME_SECONDS && Math.abs(a) > MAX_TIME_SECONDS)
    throw new ProtobufError(`time ${a} s out of range`, start);
  switch (special) {
    case "time":
      return a === ZERO_TIME_SECONDS ? null : `${new Date(a * 1000).toISOString().slice(0, 19)}Z`;
    case "microtime":
      return a === ZERO_TIME_SECONDS
        ? null
        : `${new Date(a * 1000).toISOString().slice(0, 19)}.${String(Math.floor(b / 1000)).padStart(6, "0")}Z`;
    case "duration":
      return goDuration(a);
    case "intorstring":
      return a === 1 ? s : b;
    case "quantity":
      return raw ? text(buf, raw[0], raw[1]) : "";
    case "raw":
      if (!raw || raw[1] === raw[0]) return null;
      try {
        return JSON.parse(text(buf, raw[0], raw[1]));
      } catch {
        throw new ProtobufError("raw value that is not JSON", raw[0]);
      }
  }
}

/** A duration in nanoseconds as Go's time.Duration.String() writes it (`1h2m3.5s`, `150ms`, `0s`). */
export function goDuration(ns: number): string {
  if (ns === 0) return "0s";
  const sign = ns < 0 ? "-" : "";
  let n = Math.abs(ns);
  if (n < 1e9) {
    const [unit, scale] = n < 1e3 ? ["ns", 1] : n < 1e6 ? ["µs", 1e3] : ["ms", 1e6];
    return `${sign}${trimFraction(n / (scale as number))}${unit}`;
  }
  const hours = Math.floor(n / 3.6e12);
  n -= hours * 3.6e12;
  const minutes = Math.floor(n / 6e10);
  n -= minutes * 6e10;
  const seconds = trimFraction(n / 1e9);
  return `${sign}${hours ? `${hours}h` : ""}${hours || minutes ? `${minutes}m` : ""}${seconds}s`;
}

function trimFraction(x: number): string {
  return String(Number(x.toFixed(9)));
}

function scalarOf(type: string): Scalar {
  switch (type) {
    case "string":
      return "string";
    case "bytes":
      return "bytes";
    case "bool":
      return "bool";
    case "double":
      return "double";
    case "float":
      return "float";
    case "sint32":
    case "sint64":
      return "sint";
    case "uint32":
    case "uint64":
      return "uint";
    default:
      return "int";
  }
}

function lazy<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}
