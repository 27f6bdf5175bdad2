import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import * as v from "valibot";
import { stringify } from "yaml";
import { checkConfig } from "../testing/config.ts";
import { ConfigSchema } from "./schema.ts";

/** A valid configuration touching most sections, the seed of the mutations. */
const VALID = {
  resyncSeconds: 60,
  namespaces: ["!kube-system"],
  reasons: ["CrashLoopBackOff", "OOMKilled"],
  runbooks: { OOMKilled: "https://wiki.example.com/oom" },
  templates: { OOMKilled: "{{.Message}}" },
  severityByReason: { OOMKilled: "high" },
  silences: [{ namespaces: ["dev"], podNamePatterns: ["^debug-"] }],
  app: { clusterName: "prod", logFormatter: "json", communityProvider: "stdout" },
  healthCheck: { port: 8060 },
  activeProbeMonitor: { enabled: true, tcp: [{ name: "db", address: "db:5432" }] },
  heartbeatMonitor: { interval: 60 },
  auditLog: { output: "stdout" },
  alert: { stdout: {} },
};

const scalar = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(""),
  fc.constant("${UNSET_VAR}"),
  fc.constant("$${X}"),
);
const value = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: "small" },
    scalar,
    fc.array(tie("any"), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie("any"), { maxKeys: 3 }),
  ),
})).any;

/** Paths into VALID, so mutations land on real keys. */
function paths(node: unknown, prefix: string[] = []): string[][] {
  if (!node || typeof node !== "object") return [prefix];
  return [prefix, ...Object.entries(node).flatMap(([k, child]) => paths(child, [...prefix, k]))];
}
const PATHS = paths(VALID).filter((p) => p.length > 0);

function mutate(path: string[], replacement: unknown): unknown {
  const copy = structuredClone(VALID) as Record<string, unknown>;
  let node = copy;
  for (const part of path.slice(0, -1)) node = node[part] as Record<string, unknown>;
  node[path[path.length - 1]!] = replacement;
  return copy;
}

describe("the loader against random input (property tests)", () => {
  test("random YAML text never throws; it yields a configuration or problems, never both", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const result = checkConfig(text, "random.yaml", {});
        const errors = result.problems.filter((p) => p.level === "error");
        expect(Boolean(result.config)).toBe(errors.length === 0);
      }),
      { numRuns: 400 },
    );
  });

  test("random documents never throw, and whatever is accepted satisfies the schema", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...Object.keys(ConfigSchema.entries ?? {}), "unknownKey"), value, { maxKeys: 5 }),
        (doc) => {
          const result = checkConfig(stringify(doc), "random.yaml", {});
          if (result.config) expect(v.safeParse(ConfigSchema, result.config).success).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });

  test("a valid configuration with one key replaced never throws; an accepted result still satisfies the schema and every problem has a location", () => {
    fc.assert(
      fc.property(fc.constantFrom(...PATHS), value, (path, replacement) => {
        const result = checkConfig(stringify(mutate(path, replacement)), "mutated.yaml", {});
        if (result.config) expect(v.safeParse(ConfigSchema, result.config).success).toBe(true);
        for (const p of result.problems) {
          expect(p.message.length).toBeGreaterThan(0);
          expect(p.file).toBe("mutated.yaml");
        }
      }),
      { numRuns: 600 },
    );
  });

  test("the unmutated seed is valid", () => {
    expect(checkConfig(stringify(VALID), "seed.yaml", {}).problems.filter((p) => p.level === "error")).toEqual([]);
  });
});
