import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Shape } from "../../model/projection.ts";
import { SHAPES } from "../../model/shapes.ts";
import { project } from "../project.ts";
import { decodeMessage, goDuration, ProtobufPlans } from "./decode.ts";
import { encodeMessage } from "./encode.ts";
import { KIND_MESSAGES, type ProtoSchema } from "./schema.ts";
import schemaJson from "./schema.generated.json";

const schema = schemaJson as unknown as ProtoSchema;
const FIXTURES = join(import.meta.dirname, "../../sim/testdata/kube-apiserver-v1.32");

/** Every object the recorded v1.32 exchanges hold, with its apiVersion and kind. */
function recordedObjects(): { apiVersion: string; kind: string; object: Record<string, unknown> }[] {
  const out: { apiVersion: string; kind: string; object: Record<string, unknown> }[] = [];
  const seen = (o: Record<string, unknown>, apiVersion?: string, kind?: string) => {
    const av = (o.apiVersion as string | undefined) ?? apiVersion;
    const k = (o.kind as string | undefined) ?? kind;
    if (av && k && KIND_MESSAGES[`${av}/${k}`] && o.metadata) out.push({ apiVersion: av, kind: k, object: o });
  };
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ndjson"))
        for (const line of readFileSync(path, "utf8").split("\n"))
          if (line.trim()) {
            const event = JSON.parse(line) as { object?: Record<string, unknown> };
            if (event.object) seen(event.object);
          }
    }
  };
  walk(FIXTURES);
  return out;
}

describe("protobuf decoded straight into the declared projection (issue 55)", () => {
  const plans = new ProtobufPlans(schema);
  test("every recorded v1.32 object: encoded as kube-apiserver does, decoded under its kind's shape, equals its JSON projected", () => {
    const objects = recordedObjects();
    expect(objects.length).toBeGreaterThan(50);
    const differ: string[] = [];
    for (const { apiVersion, kind, object } of objects) {
      const message = KIND_MESSAGES[`${apiVersion}/${kind}`] as string;
      const bytes = encodeMessage(schema, message, object);
      const shape = (SHAPES as Record<string, Shape>)[kind] ?? true;
      const decoded = decodeMessage(bytes, 0, bytes.length, plans.plan(message, shape));
      const { kind: _k, apiVersion: _a, ...projected } = project(kind, object) as Record<string, unknown>;
      if (JSON.stringify(sortKeys(decoded)) !== JSON.stringify(sortKeys(projected)))
        differ.push(`${kind} ${JSON.stringify(diff(projected, decoded)).slice(0, 400)}`);
      // And read whole: every field of every message, as JSON has it.
      const whole = decodeMessage(bytes, 0, bytes.length, plans.plan(message, true));
      const { kind: _k2, apiVersion: _a2, ...all } = object;
      if (JSON.stringify(sortKeys(whole)) !== JSON.stringify(sortKeys(all)))
        differ.push(`${kind} whole ${JSON.stringify(diff(all, whole)).slice(0, 400)}`);
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

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}

function diff(a: unknown, b: unknown, path = ""): string[] {
  if (JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b))) return [];
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) =>
      diff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`),
    );
  }
  return [`${path}: json ${JSON.stringify(a)?.slice(0, 80)} protobuf ${JSON.stringify(b)?.slice(0, 80)}`];
}
