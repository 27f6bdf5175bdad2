import type { ProtoField, ProtoSchema } from "./schema.ts";

/**
 * Encodes a JSON-shaped Kubernetes object into protobuf as kube-apiserver writes it (gogo-protobuf's generated
 * marshalers, issue 55): every non-pointer scalar written even when zero, pointers and lists only when set, an
 * embedded struct's fields taken from its parent, times as seconds and nanoseconds, IntOrString and Quantity as
 * their messages, map entries by sorted key. Used by the simulator to serve protobuf and by tests to check the
 * decoder; the real API server's own bytes are the reference (the differential). Throws Error on a message not in
 * the schema.
 */
export function encodeMessage(schema: ProtoSchema, name: string, value: Record<string, unknown>): Uint8Array {
  const out = new Writer();
  writeMessage(out, schema, name, value);
  return out.bytes();
}

/** The envelope kube-apiserver puts around every protobuf object: `k8s\0` and a runtime.Unknown. */
export function envelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const meta = new Writer();
  meta.string(1, apiVersion);
  meta.string(2, kind);
  const unknown = new Writer();
  unknown.bytesField(1, meta.bytes());
  unknown.bytesField(2, raw);
  unknown.string(3, "");
  unknown.string(4, "");
  const body = unknown.bytes();
  const out = new Uint8Array(4 + body.length);
  out.set([0x6b, 0x38, 0x73, 0x00]);
  out.set(body, 4);
  return out;
}

/** A watch stream frame: a 4-byte big-endian length and a meta.v1.WatchEvent whose object is `enveloped`. */
export function watchFrame(type: string, enveloped: Uint8Array): Uint8Array {
  const raw = new Writer();
  raw.bytesField(1, enveloped);
  const event = new Writer();
  event.string(1, type);
  event.bytesField(2, raw.bytes());
  const body = event.bytes();
  const out = new Uint8Array(4 + body.length);
  new DataView(out.buffer).setUint32(0, body.length);
  out.set(body, 4);
  return out;
}

// --- internal ---

const encoder = new TextEncoder();

class Writer {
  private buf = new Uint8Array(256);
  private len = 0;
  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
  private byte(b: number): void {
    this.room(1);
    this.buf[this.len++] = b;
  }
  varint(n: number): void {
    if (n >= 0 && n <= 0x7fffffff) {
      let v = n;
      while (v >= 0x80) {
        this.byte((v & 0x7f) | 0x80);
        v >>>= 7;
      }
      this.byte(v);
      return;
    }
    // Large and negative numbers (ten bytes of two's complement), exactly.
    let v = BigInt.asUintN(64, BigInt(n));
    while (v >= 0x80n) {
      this.byte(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.byte(Number(v));
  }
  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }
  bytesField(field: number, bytes: Uint8Array): void {
    this.tag(field, 2);
    this.varint(bytes.length);
    this.room(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }
  string(field: number, s: string): void {
    this.bytesField(field, encoder.encode(s));
  }
  double(field: number, x: number): void {
    this.tag(field, 1);
    this.room(8);
    new DataView(this.buf.buffer, this.len, 8).setFloat64(0, x, true);
    this.len += 8;
  }
  bytes(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

const TIME = "k8s.io.apimachinery.pkg.apis.meta.v1.Time";
const MICROTIME = "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime";
const INT_OR_STRING = "k8s.io.apimachinery.pkg.util.intstr.IntOrString";
const QUANTITY = "k8s.io.apimachinery.pkg.api.resource.Quantity";
const RAW = new Set(["k8s.io.apimachinery.pkg.runtime.RawExtension", "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1"]);
const DURATION = "k8s.io.apimachinery.pkg.apis.meta.v1.Duration";

function writeMessage(out: Writer, schema: ProtoSchema, name: string, value: Record<string, unknown>): void {
  const fields = schema.messages[name];
  if (!fields) throw new Error(`no protobuf message ${name} in the schema`);
  for (const field of fields) writeField(out, schema, field, value);
}

function writeField(out: Writer, schema: ProtoSchema, field: ProtoField, parent: Record<string, unknown>): void {
  const [number, name, type, rule, json, key] = field;
  if (json.includes("i")) {
    const inner = new Writer();
    writeMessage(inner, schema, type, parent);
    out.bytesField(number, inner.bytes());
    return;
  }
  const value = parent[name];
  const pointer = json.includes("p");
  if (rule === "map") {
    const entries = Object.entries((value ?? {}) as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    for (const [k, v] of entries) {
      const entry = new Writer();
      writeScalar(entry, 1, key ?? "string", k);
      writeOne(entry, schema, 2, type, v);
      out.bytesField(number, entry.bytes());
    }
    return;
  }
  if (rule === "repeated") {
    for (const item of (value ?? []) as unknown[]) writeOne(out, schema, number, type, item);
    return;
  }
  if (value === undefined || value === null) {
    // gogo writes a non-pointer field whatever its value: zero when JSON left it out.
    if (pointer) return;
    if (schema.messages[type] || type === TIME || type === MICROTIME) {
      if (type === TIME || type === MICROTIME) writeOne(out, schema, number, type, null);
      else out.bytesField(number, encodeMessageBytes(schema, type, {}));
      return;
    }
    writeScalar(out, number, type, type === "string" || type === "bytes" ? "" : type === "bool" ? false : 0);
    return;
  }
  writeOne(out, schema, number, type, value);
}

function writeOne(out: Writer, schema: ProtoSchema, number: number, type: string, value: unknown): void {
  if (type === TIME || type === MICROTIME) {
    // A zero time is an empty message, as metav1.Time's Marshal writes it.
    if (value === null) {
      out.bytesField(number, new Uint8Array(0));
      return;
    }
    const t = new Writer();
    const ms = Date.parse(String(value));
    const seconds = Math.floor(ms / 1000);
    t.tag(1, 0);
    t.varint(seconds);
    const nanos = type === MICROTIME && typeof value === "string" ? microNanos(value) : 0;
    t.tag(2, 0);
    t.varint(nanos);
    out.bytesField(number, t.bytes());
    return;
  }
  if (type === INT_OR_STRING) {
    const t = new Writer();
    const isString = typeof value === "string";
    t.tag(1, 0);
    t.varint(isString ? 1 : 0);
    t.tag(2, 0);
    t.varint(isString ? 0 : Number(value));
    t.string(3, isString ? value : "");
    out.bytesField(number, t.bytes());
    return;
  }
  if (type === QUANTITY) {
    const t = new Writer();
    t.string(1, String(value));
    out.bytesField(number, t.bytes());
    return;
  }
  if (type === DURATION) throw new Error("Duration is not encoded: no watched kind keeps one");
  if (RAW.has(type)) {
    const t = new Writer();
    t.bytesField(1, encoder.encode(JSON.stringify(value)));
    out.bytesField(number, t.bytes());
    return;
  }
  if (schema.messages[type]) {
    out.bytesField(number, encodeMessageBytes(schema, type, value as Record<string, unknown>));
    return;
  }
  writeScalar(out, number, type, value);
}

function encodeMessageBytes(schema: ProtoSchema, type: string, value: Record<string, unknown>): Uint8Array {
  const w = new Writer();
  writeMessage(w, schema, type, value);
  return w.bytes();
}

function writeScalar(out: Writer, number: number, type: string, value: unknown): void {
  switch (type) {
    case "string":
      out.string(number, String(value));
      return;
    case "bytes":
      out.bytesField(
        number,
        Uint8Array.from(atob(String(value)), (c) => c.charCodeAt(0)),
      );
      return;
    case "bool":
      out.tag(number, 0);
      out.varint(value ? 1 : 0);
      return;
    case "double":
      out.double(number, Number(value));
      return;
    case "sint32":
    case "sint64": {
      const n = Number(value);
      out.tag(number, 0);
      out.varint(n >= 0 ? n * 2 : -n * 2 - 1);
      return;
    }
    default:
      out.tag(number, 0);
      out.varint(Number(value));
  }
}

function microNanos(iso: string): number {
  const fraction = /\.(\d+)Z$/.exec(iso)?.[1] ?? "";
  return Number(fraction.padEnd(9, "0").slice(0, 9));
}
