import { Buffer } from "node:buffer";
import type { Shape } from "../../model/projection.ts";
import { doorRule, MAX_ITEMS, MAX_TEXT, markAdmissible } from "../admit.ts";
import type { ProtoField, ProtoSchema } from "./schema.ts";
import { base64, FIXED32, FIXED64, LENGTH, ProtobufError, text, VARINT, varintAt, varintEnd } from "./wire.ts";

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
  readonly scalar: Scalar | undefined;
  /** A repeated number, which may come packed. */
  readonly packable: boolean;
  readonly special: Special | undefined;
  /** The plan of a message value (its item, for a list; its value, for a map). */
  readonly message: (() => MessagePlan) | undefined;
  readonly key: Scalar | undefined;
  /** The Inventory's door drops a `null` under this name (kube/admit.ts): none is written. */
  readonly dropNull: boolean;
}

/** How to read one message under one shape: its kept fields by number. */
export interface MessagePlan {
  readonly fields: readonly (FieldPlan | undefined)[];
  /** Kept fields JSON writes as `null` when unset (a pointer, list or map without `omitempty`). */
  readonly nullIfAbsent: readonly string[];
  /**
   * Whether every kept field, here and below, has the type the Inventory's door reads under its name: then an
   * object decoded within the door's bounds is admitted without its walk (kube/admit.ts markAdmissible).
   */
  readonly doorSafe: () => boolean;
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
    let unsafe = false;
    for (const [number, field, type, rule, json, key] of fields) {
      const inline = json.includes("i");
      // An inlined struct's fields are named by the parent's shape.
      const sub: Shape | undefined = shape === true || inline ? shape : (shape as Record<string, Shape>)[field];
      if (sub === undefined) continue;
      const itemShape: Shape = Array.isArray(sub) ? (sub[0] as Shape) : sub;
      const door = doorRule(field);
      const special = SPECIAL[type];
      const isMessage = !special && this.schema.messages[type] !== undefined;
      const verdict = door
        ? this.doorVerdict({ door, name: field, type, rule, special, isMessage, itemShape })
        : "kept";
      // A field the door would drop whatever it holds (a volume's `image` source is an object, the door reads
      // `image` as a container's string) is not decoded at all: the object stays within the door's rules.
      if (verdict === "dropped") continue;
      // As the JSON door does (kube/project.ts): a null where the shape reads a list or an object is dropped;
      // and the Inventory's door drops one under any name it has a rule for (kube/admit.ts).
      if (json.includes("n") && sub === true && door === undefined) nullIfAbsent.push(field);
      // Every plan has the same fields in the same order: the decoder's reads of them stay monomorphic.
      out[number] = {
        name: field,
        rule,
        omitEmpty: json.includes("e"),
        inline,
        scalar: !special && !isMessage ? scalarOf(type) : undefined,
        packable: rule === "repeated" && !special && !isMessage && type !== "string" && type !== "bytes",
        special,
        message: isMessage ? lazy(() => this.plan(type, rule === "map" ? true : itemShape)) : undefined,
        key: key ? scalarOf(key) : undefined,
        dropNull: door !== undefined,
      };
      if (verdict === "walked") unsafe = true;
    }
    const plans = out;
    let safe: boolean | undefined;
    const doorSafe = (): boolean => {
      if (safe !== undefined) return safe;
      // Assumed safe while its own sub-plans are asked (a message that holds itself).
      safe = !unsafe;
      for (const f of plans) if (safe && f?.message && !f.message().doorSafe()) safe = false;
      return safe;
    };
    return { fields: out, nullIfAbsent, doorSafe };
  }

  /**
   * What the door (kube/admit.ts cleanField) does with a field it has a rule for, whatever the field holds:
   * `kept` as decoded (it always holds what the rule reads), `dropped` (it never does), or `walked` — only the
   * door's walk of the object can say.
   */
  private doorVerdict(field: DoorField): "kept" | "dropped" | "walked" {
    if (alwaysDropped(field)) return "dropped";
    return this.fitsDoor(field) ? "kept" : "walked";
  }

  /** Whether the field always holds what the door's rule reads. */
  private fitsDoor({ door, name, type, rule, special, isMessage, itemShape }: DoorField): boolean {
    const one = rule === "optional";
    const string = type === "string" || special === "time" || special === "microtime" || special === "quantity";
    switch (door) {
      case "string":
        return one && string;
      case "number":
        return one && !special && !isMessage && !["string", "bytes", "bool"].includes(type);
      case "object":
        return (one && isMessage) || rule === "map" || (name === "status" && one && type === "string");
      case "stringMap":
        return rule === "map" && type === "string";
      case "stringList":
        return rule === "repeated" && type === "string";
      case "objectList": {
        if (name === "addresses" && rule === "repeated" && type === "string") return true;
        if (name === "conditions" && one && isMessage)
          return (this.schema.messages[type] ?? []).every(([, f]) => ["ready", "serving", "terminating"].includes(f));
        if (rule !== "repeated" || !isMessage) return false;
        // A condition is kept only with a string type and status: never left out when empty.
        if (name !== "conditions") return true;
        const fields = this.schema.messages[type] ?? [];
        const kept = (f: string) => itemShape === true || (itemShape as Record<string, Shape>)[f] !== undefined;
        return ["type", "status"].every((f) =>
          fields.some(([, n, t, , json]) => n === f && t === "string" && !json.includes("e") && kept(f)),
        );
      }
    }
  }
}

/**
 * Decodes the message in `buf[start, end)` under `plan` into a JSON-shaped object. Throws ProtobufError when the
 * bytes are not valid protobuf or a kept field has the wrong wire type.
 */
export function decodeMessage(
  bytes: Uint8Array,
  start: number,
  end: number,
  plan: MessagePlan,
): Record<string, unknown> {
  if (start < 0 || end > bytes.length || start > end) throw new ProtobufError("message out of bounds", start);
  buf = bytes;
  pos = start;
  slice = stringReader(bytes);
  admissible = true;
  depth = 0;
  const out: Record<string, unknown> = {};
  readInto(end, plan, out);
  // Within the door's bounds, every field of the rule's type: the door would admit it as it is.
  if (admissible && plan.doorSafe()) markAdmissible(out);
  return out;
}

/** A field of a message's plan the door has a rule for, as the plan judges it against that rule. */
interface DoorField {
  readonly door: NonNullable<ReturnType<typeof doorRule>>;
  readonly name: string;
  readonly type: string;
  readonly rule: ProtoField[3];
  readonly special: Special | undefined;
  readonly isMessage: boolean;
  /** The shape of the field's value, or of one item of it. */
  readonly itemShape: Shape;
}

/**
 * Whether the door drops a field of this protobuf type under its rule whatever value it holds: an object, a list
 * or a number where it reads a string, an object, a list or a string where it reads a number, a list or a scalar
 * where it reads an object, a string where it reads a list or a map. Raw JSON (any shape) is never judged here.
 */
function alwaysDropped({ door, name, type, rule, special, isMessage }: DoorField): boolean {
  if (special === "raw") return false;
  const scalar = rule === "optional" && !isMessage;
  switch (door) {
    case "string":
      // Scalars other than strings and bytes decode to numbers and booleans.
      return !scalar || (!special && !["string", "bytes"].includes(type));
    case "number":
      return !scalar || (!special && ["string", "bytes", "bool"].includes(type));
    case "stringMap":
    case "objectList":
      return scalar;
    case "stringList":
      return rule !== "repeated";
    case "object":
      // A list, or a scalar (but a condition's `status` string, which the door keeps).
      return rule === "repeated" || (scalar && !(name === "status" && type === "string"));
  }
}

// --- internal ---

// The decoder's cursor: one message is decoded at a time, synchronously, so a module-level position costs no
// allocation per field or sub-message (what a reader object per message did: 4 × JSON.parse's time).
let buf: Uint8Array = new Uint8Array(0);
let pos = 0;
let slice: (start: number, end: number) => string = (s, e) => text(buf, s, e);
/** False once the object holds what the Inventory's door would cut (a long string, a long list, deep nesting). */
let admissible = true;
let depth = 0;
/** Nesting past which the door's own walk is left to judge (it drops values at 24 levels). */
const DOOR_DEPTH = 12;

const utf8 = new TextDecoder();

let lastBytes: Uint8Array | undefined;
let lastReader: (start: number, end: number) => string = (s, e) => text(buf, s, e);

/**
 * The fastest UTF-8 reader the runtime has for `bytes`: node:buffer's native slice over the same memory (no
 * copy), else a TextDecoder. Made once per byte array (a list's items, a chunk's frames share one).
 */
function stringReader(bytes: Uint8Array): (start: number, end: number) => string {
  if (bytes === lastBytes) return lastReader;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as {
    utf8Slice?: (s: number, e: number) => string;
  };
  const native = view.utf8Slice;
  lastBytes = bytes;
  lastReader =
    typeof native === "function"
      ? (s, e) => native.call(view, s, e)
      : (s, e) => (e - s <= 24 ? text(bytes, s, e) : utf8.decode(bytes.subarray(s, e)));
  return lastReader;
}

function varint(end: number): number {
  // Most tags and lengths are one byte: read here; the rest by the wire's one reader.
  if (pos < end) {
    const byte = buf[pos] as number;
    if (byte < 0x80) {
      pos++;
      return byte;
    }
  }
  const value = varintAt(buf, pos, end);
  pos = varintEnd;
  return value;
}

/** The end of a length-delimited value starting at the cursor; the cursor moves to its start. */
function length(end: number): number {
  const n = varint(end);
  const stop = pos + n;
  // A negative length (ten bytes of two's complement) would move the cursor back: refused, as past the end.
  if (n < 0 || stop > end) throw new ProtobufError(`length ${n} past the end`, pos);
  return stop;
}

function skip(wire: number, end: number): void {
  switch (wire) {
    case VARINT:
      varint(end);
      return;
    case LENGTH:
      pos = length(end);
      return;
    case FIXED64:
      if (pos + 8 > end) throw new ProtobufError("8 bytes past the end", pos);
      pos += 8;
      return;
    case FIXED32:
      if (pos + 4 > end) throw new ProtobufError("4 bytes past the end", pos);
      pos += 4;
      return;
    default:
      throw new ProtobufError(`wire type ${wire} is not read`, pos);
  }
}

function readInto(end: number, plan: MessagePlan, out: Record<string, unknown>): void {
  const { fields } = plan;
  if (++depth > DOOR_DEPTH) admissible = false;
  let entries = 0;
  for (let i = 0; i < plan.nullIfAbsent.length; i++) out[plan.nullIfAbsent[i] as string] = null;
  while (pos < end) {
    const tag = varint(end);
    const wire = tag & 7;
    const field = fields[tag >>> 3];
    if (field === undefined) {
      skip(wire, end);
      continue;
    }
    if (field.rule === "map") {
      if (wire !== LENGTH) throw new ProtobufError(`map field ${field.name} with wire type ${wire}`, pos);
      const stop = length(end);
      let map = out[field.name] as Record<string, unknown> | undefined | null;
      if (!map) out[field.name] = map = {};
      readEntry(stop, field, map);
      if (++entries > MAX_ITEMS) admissible = false;
      continue;
    }
    if (field.inline) {
      if (wire !== LENGTH) throw new ProtobufError(`field ${field.name} with wire type ${wire}`, pos);
      const stop = length(end);
      readInto(stop, (field.message as () => MessagePlan)(), out);
      continue;
    }
    if (field.rule === "repeated") {
      let list = out[field.name] as unknown[] | undefined | null;
      if (!list) out[field.name] = list = [];
      if (wire === LENGTH && field.packable) {
        // A packed list of numbers.
        const stop = length(end);
        while (pos < stop) list.push(readScalar(field.scalar as Scalar, VARINT, stop));
      } else list.push(readValue(field, wire, end));
      if (list.length > MAX_ITEMS) admissible = false;
      continue;
    }
    const value = readValue(field, wire, end);
    if (value === null ? !field.dropNull : !(field.omitEmpty && (value === "" || value === 0 || value === false)))
      out[field.name] = value;
  }
  if (pos !== end) throw new ProtobufError("field past its message's end", pos);
  depth--;
}

function readValue(field: FieldPlan, wire: number, end: number): unknown {
  if (field.scalar) return readScalar(field.scalar, wire, end);
  if (wire !== LENGTH) throw new ProtobufError(`field ${field.name} with wire type ${wire}`, pos);
  const stop = length(end);
  if (field.special) return readSpecial(stop, field.special);
  const out: Record<string, unknown> = {};
  readInto(stop, (field.message as () => MessagePlan)(), out);
  return out;
}

function readScalar(scalar: Scalar, wire: number, end: number): unknown {
  switch (scalar) {
    case "string": {
      if (wire !== LENGTH) throw new ProtobufError(`string with wire type ${wire}`, pos);
      const stop = length(end);
      const start = pos;
      pos = stop;
      if (stop - start > MAX_TEXT) admissible = false;
      return start === stop ? "" : stop - start <= INTERN_MAX ? interned(start, stop) : slice(start, stop);
    }
    case "bytes": {
      if (wire !== LENGTH) throw new ProtobufError(`bytes with wire type ${wire}`, pos);
      const stop = length(end);
      const start = pos;
      pos = stop;
      return base64(buf, start, stop);
    }
    case "bool":
      return expectVarint(wire, end) !== 0;
    case "int":
    case "uint":
      return expectVarint(wire, end);
    case "sint": {
      const n = expectVarint(wire, end);
      return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
    }
    case "double": {
      if (wire !== FIXED64) throw new ProtobufError(`double with wire type ${wire}`, pos);
      if (pos + 8 > end) throw new ProtobufError("double past the end", pos);
      const value = new DataView(buf.buffer, buf.byteOffset + pos, 8).getFloat64(0, true);
      pos += 8;
      return value;
    }
    case "float": {
      if (wire !== FIXED32) throw new ProtobufError(`float with wire type ${wire}`, pos);
      if (pos + 4 > end) throw new ProtobufError("float past the end", pos);
      const value = new DataView(buf.buffer, buf.byteOffset + pos, 4).getFloat32(0, true);
      pos += 4;
      return value;
    }
  }
}

function expectVarint(wire: number, end: number): number {
  if (wire !== VARINT) throw new ProtobufError(`number with wire type ${wire}`, pos);
  return varint(end);
}

/** One map entry (key = 1, value = 2) into `map`. */
function readEntry(end: number, field: FieldPlan, map: Record<string, unknown>): void {
  let key: unknown = "";
  let value: unknown = field.scalar === "string" ? "" : field.scalar ? 0 : {};
  while (pos < end) {
    const tag = varint(end);
    const wire = tag & 7;
    if (tag >>> 3 === 1) key = readScalar(field.key ?? "string", wire, end);
    else if (tag >>> 3 === 2) value = readValue(field, wire, end);
    else skip(wire, end);
  }
  map[String(key)] = value;
}

function readSpecial(end: number, special: Special): unknown {
  let a = 0;
  let b = 0;
  let s = "";
  let raw: [number, number] | undefined;
  const start = pos;
  while (pos < end) {
    const tag = varint(end);
    const wire = tag & 7;
    const n = tag >>> 3;
    if (special === "quantity" || special === "raw") {
      if (n === 1 && wire === LENGTH) {
        const stop = length(end);
        raw = [pos, stop];
        pos = stop;
      } else skip(wire, end);
    } else if (special === "intorstring" && n === 3 && wire === LENGTH) {
      const stop = length(end);
      s = slice(pos, stop);
      pos = stop;
    } else if (n === 1 && wire === VARINT) a = varint(end);
    else if (n === 2 && wire === VARINT) b = varint(end);
    else skip(wire, end);
  }
  if ((special === "time" || special === "microtime") && a !== ZERO_TIME_SECONDS && Math.abs(a) > MAX_TIME_SECONDS)
    throw new ProtobufError(`time ${a} s out of range`, start);
  // kube-apiserver writes a zero time as an empty message (metav1.Time's Marshal), which its Unmarshal reads back as
  // the zero time: JSON's null (found on the real control plane).
  const empty = end === start;
  switch (special) {
    case "time":
      return empty || a === ZERO_TIME_SECONDS ? null : isoSeconds(a);
    case "microtime":
      return empty || a === ZERO_TIME_SECONDS
        ? null
        : `${isoSeconds(a).slice(0, 19)}.${String(Math.floor(b / 1000)).padStart(6, "0")}Z`;
    case "duration":
      return goDuration(a);
    case "intorstring":
      return a === 1 ? s : b;
    case "quantity":
      return raw ? slice(raw[0], raw[1]) : "";
    case "raw":
      if (!raw || raw[1] === raw[0]) return null;
      // Raw JSON of any shape (a ControllerRevision's data, a managed field set): only the door's walk judges
      // it, so an object that holds one is walked (one that could but does not, a pod template, is not).
      admissible = false;
      try {
        return JSON.parse(slice(raw[0], raw[1]));
      } catch {
        throw new ProtobufError("raw value that is not JSON", raw[0]);
      }
  }
}

/** Longest string the decoder shares between objects, bytes. */
const INTERN_MAX = 32;
const INTERN_SLOTS = 8192;
const internStrings: (string | undefined)[] = new Array(INTERN_SLOTS);
const internBytes = new Uint8Array(INTERN_SLOTS * INTERN_MAX);
const internLengths = new Uint8Array(INTERN_SLOTS);

/**
 * The short string in `buf[start, end)`, shared with every other object holding the same bytes (condition
 * types and statuses, label keys, node and image names …): one string in memory instead of one per object,
 * and no decoding on a hit. A table of the last string seen in each of 8,192 slots, by a hash of its bytes.
 */
function interned(start: number, end: number): string {
  const n = end - start;
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ (buf[i] as number), 0x01000193);
  const slot = (h >>> 0) & (INTERN_SLOTS - 1);
  const cached = internStrings[slot];
  if (cached !== undefined && internLengths[slot] === n) {
    const at = slot * INTERN_MAX;
    let same = true;
    for (let i = 0; i < n; i++)
      if (internBytes[at + i] !== buf[start + i]) {
        same = false;
        break;
      }
    if (same) return cached;
  }
  const value = slice(start, end);
  internStrings[slot] = value;
  internLengths[slot] = n;
  internBytes.set(buf.subarray(start, end), slot * INTERN_MAX);
  return value;
}

// The same times recur (a pod's conditions, a node's heartbeats): the last few are remembered.
const isoCache = new Map<number, string>();

/** RFC 3339 of Unix seconds, as Kubernetes writes a metav1.Time (`2026-12-03T10:00:00Z`). */
function isoSeconds(seconds: number): string {
  let iso = isoCache.get(seconds);
  if (iso === undefined) {
    iso = `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
    if (isoCache.size >= 1024) isoCache.clear();
    isoCache.set(seconds, iso);
  }
  return iso;
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
