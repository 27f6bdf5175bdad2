import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { LineSplitter } from "./lines.ts";

const encode = (s: string) => new TextEncoder().encode(s);

/** Feeds `text` cut at `cuts` (byte offsets) and returns the lines seen. */
function split(text: string, cuts: readonly number[]): string[] {
  const bytes = encode(text);
  const out: string[] = [];
  const splitter = new LineSplitter();
  let from = 0;
  for (const at of [...cuts].sort((a, b) => a - b)) {
    splitter.push(bytes.slice(from, at), (l) => out.push(l));
    from = at;
  }
  splitter.push(bytes.slice(from), (l) => out.push(l));
  return out;
}

describe("LineSplitter (watch stream lines)", () => {
  test("the events of a stream cut anywhere come out whole, in order: a multi-byte character split between chunks included", () => {
    const events = ['{"type":"ADDED","object":{"name":"día-ß-🚀"}}', '{"type":"MODIFIED","object":{"n":"x"}}'];
    const text = `${events.join("\n")}\n`;
    const length = encode(text).length;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: length }), { maxLength: 8 }), (cuts) => {
        expect(split(text, cuts).map((l) => JSON.parse(l))).toEqual(events.map((e) => JSON.parse(e)));
      }),
      { numRuns: 300 },
    );
  });

  test("blank lines are skipped and an unfinished line is held until its newline", () => {
    const out: string[] = [];
    const splitter = new LineSplitter();
    splitter.push(encode('\n \r\n{"a":1}\n{"b"'), (l) => out.push(l));
    expect(out).toEqual(['{"a":1}']);
    expect(splitter.held).toBe(4);
    splitter.push(encode(":2}\n"), (l) => out.push(l));
    expect(out).toEqual(['{"a":1}', '{"b":2}']);
    expect(splitter.held).toBe(0);
  });

  test("a chunk buffer reused by the stream after push does not change a held line", () => {
    const out: string[] = [];
    const splitter = new LineSplitter();
    const chunk = encode('{"a":');
    splitter.push(chunk, (l) => out.push(l));
    chunk.fill(0x20);
    splitter.push(encode("1}\n"), (l) => out.push(l));
    expect(out).toEqual(['{"a":1}']);
  });
});
