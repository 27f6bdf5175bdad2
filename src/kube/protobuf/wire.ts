/**
 * The protobuf wire format, read without building anything it is not asked for (issue 55): varints, lengths
 * and skips over a byte array, bounds-checked. A frame that breaks the format throws ProtobufError naming
 * where; nothing here allocates but the values read.
 */

/** A byte string that is not valid protobuf: `at` is the byte offset where reading failed. */
export class ProtobufError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(`${message} at byte ${at}`);
    this.name = "ProtobufError";
  }
}

/** Wire types (protobuf encoding): varint, 64-bit, length-delimited, 32-bit (groups are not used by Kubernetes). */
export const VARINT = 0;
export const FIXED64 = 1;
export const LENGTH = 2;
export const FIXED32 = 5;

/** Where the last `varintAt` ended. */
export let varintEnd = 0;

/**
 * The varint at `buf[at]`, read no further than `end`, as a number; `varintEnd` is where it ended. Two 32-bit
 * halves, as protobuf's own readers do: exact for every number a Kubernetes object holds (under 2^53), negative
 * ones (ten bytes of two's complement, Go's zero time among them) included, without a BigInt. Throws
 * ProtobufError past `end` or beyond ten bytes.
 */
export function varintAt(buf: Uint8Array, at: number, end: number): number {
  let pos = at;
  if (pos >= end) throw new ProtobufError("varint past the end", pos);
  let byte = buf[pos++] as number;
  let lo = byte & 0x7f;
  if (byte < 0x80) {
    varintEnd = pos;
    return byte;
  }
  for (let shift = 7; shift < 28; shift += 7) {
    if (pos >= end) throw new ProtobufError("varint past the end", pos);
    byte = buf[pos++] as number;
    lo |= (byte & 0x7f) << shift;
    if (byte < 0x80) {
      varintEnd = pos;
      return lo >>> 0;
    }
  }
  if (pos >= end) throw new ProtobufError("varint past the end", pos);
  byte = buf[pos++] as number;
  lo |= (byte & 0x7f) << 28;
  let hi = (byte & 0x7f) >> 4;
  if (byte >= 0x80) {
    for (let shift = 3; ; shift += 7) {
      if (shift > 31) throw new ProtobufError("varint longer than ten bytes", pos);
      if (pos >= end) throw new ProtobufError("varint past the end", pos);
      byte = buf[pos++] as number;
      hi |= (byte & 0x7f) << shift;
      if (byte < 0x80) break;
    }
  }
  varintEnd = pos;
  return (hi | 0) * 4294967296 + (lo >>> 0);
}

/** A position in a byte array, read forward up to `end`. */
export class WireReader {
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    start = 0,
    public end = buf.length,
  ) {
    this.pos = start;
  }

  /** A varint as a number (`varintAt`), the reader moved past it. */
  varint(): number {
    const value = varintAt(this.buf, this.pos, this.end);
    this.pos = varintEnd;
    return value;
  }

  /** A length-delimited field's bounds: [start, end) of its bytes, with the reader moved past them. */
  span(): [number, number] {
    const length = this.varint();
    const start = this.pos;
    const stop = start + length;
    if (length < 0 || stop > this.end) throw new ProtobufError(`length ${length} past the end`, start);
    this.pos = stop;
    return [start, stop];
  }

  /** A little-endian 64-bit double. */
  double(): number {
    const at = this.pos;
    if (at + 8 > this.end) throw new ProtobufError("double past the end", at);
    this.pos = at + 8;
    return new DataView(this.buf.buffer, this.buf.byteOffset + at, 8).getFloat64(0, true);
  }

  /** Skips one field's value of wire type `wire`. Throws ProtobufError on a group or an unknown wire type. */
  skip(wire: number): void {
    switch (wire) {
      case VARINT:
        this.varint();
        return;
      case FIXED64:
        this.advance(8);
        return;
      case LENGTH:
        this.span();
        return;
      case FIXED32:
        this.advance(4);
        return;
      default:
        throw new ProtobufError(`wire type ${wire} is not read`, this.pos);
    }
  }

  private advance(n: number): void {
    if (this.pos + n > this.end) throw new ProtobufError(`${n} bytes past the end`, this.pos);
    this.pos += n;
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: false });

/** The UTF-8 text of `buf[start, end)`: short ASCII without a decoder call (most of Kubernetes' strings). */
export function text(buf: Uint8Array, start: number, end: number): string {
  const n = end - start;
  if (n === 0) return "";
  if (n <= 24) {
    let out = "";
    for (let i = start; i < end; i++) {
      const c = buf[i] as number;
      if (c >= 0x80) return utf8.decode(buf.subarray(start, end));
      out += String.fromCharCode(c);
    }
    return out;
  }
  return utf8.decode(buf.subarray(start, end));
}

/** Base64 of `buf[start, end)`, as Kubernetes' JSON writes a `bytes` field. */
export function base64(buf: Uint8Array, start: number, end: number): string {
  let binary = "";
  for (let i = start; i < end; i++) binary += String.fromCharCode(buf[i] as number);
  return btoa(binary);
}
