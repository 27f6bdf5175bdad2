import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { parse } from "yaml";
import { ChartValuesSchema } from "./chart-values.ts";

/**
 * The chart (deploy/chart/mon) without a Helm binary: its values against the one schema, every value acted
 * on by a template and every template value declared, and templates kept to the plain subset a reviewer can
 * read by eye (values, if, range, with, include, toYaml and a few string functions).
 */
const CHART = join(import.meta.dirname, "..", "..", "deploy", "chart", "mon");
const values = parse(readFileSync(join(CHART, "values.yaml"), "utf8")) as Record<string, unknown>;
const templates = readdirSync(join(CHART, "templates")).map((name) => ({
  name,
  text: readFileSync(join(CHART, "templates", name), "utf8"),
}));
const actions = templates.flatMap((t) => [...t.text.matchAll(/\{\{-?\s*(.*?)\s*-?\}\}/gs)].map((m) => m[1]!));

/** Dotted paths of the leaves of `values` (objects are walked; lists and empty objects are leaves). */
function leaves(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object" || Array.isArray(value) || Object.keys(value).length === 0)
    return [prefix];
  if (prefix === "config.values" || prefix === "resources") return [prefix];
  return Object.entries(value).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k));
}

describe("the Helm chart deploy/chart/mon", () => {
  test("values.yaml is valid against the chart's schema (values.schema.json is generated from it)", () => {
    expect(v.safeParse(ChartValuesSchema, values).issues).toBeUndefined();
  });

  test("the schema rejects what would deploy something else than asked", () => {
    const bad = (patch: Record<string, unknown>) =>
      v.safeParse(ChartValuesSchema, { ...structuredClone(values), ...patch }).success;
    expect(bad({ rbac: { mode: "admin" } })).toBe(false);
    expect(bad({ replicas: 0 })).toBe(false);
    expect(bad({ watch: { secrets: "no" } })).toBe(false);
    expect(bad({ unknownKey: true })).toBe(false);
    expect(bad({ image: { ...(values.image as object), digest: "latest" } })).toBe(false);
  });

  test("every value is used by a template, and every value a template reads is declared", () => {
    const used = new Set(actions.flatMap((a) => [...a.matchAll(/\.Values\.([A-Za-z0-9_.]+)/g)].map((m) => m[1]!)));
    const declared = leaves(values);
    const unusedValues = declared.filter((leaf) => ![...used].some((u) => u === leaf || leaf.startsWith(`${u}.`)));
    expect(unusedValues).toEqual([]);
    const undeclared = [...used].filter(
      (u) => !declared.some((leaf) => leaf === u || leaf.startsWith(`${u}.`) || u.startsWith(`${leaf}.`)),
    );
    expect(undeclared).toEqual([]);
  });

  test("templates stay plain: only values, if/else, range, with, include, define, toYaml and string helpers", () => {
    const allowed = new Set([
      "if",
      "else",
      "end",
      "range",
      "with",
      "include",
      "define",
      "toYaml",
      "nindent",
      "quote",
      "default",
      "printf",
      "trunc",
      "trimSuffix",
      "eq",
      "not",
      "and",
      "gt",
      "int",
      "sha256sum",
      "replace",
      "fail",
      "indent",
    ]);
    const words = actions
      .filter((a) => !a.startsWith("/*"))
      .flatMap((a) => a.replace(/"[^"]*"/g, "").match(/(?<![.$\w])[a-zA-Z][a-zA-Z0-9]*/g) ?? []);
    expect([...new Set(words.filter((w) => !allowed.has(w)))]).toEqual([]);
  });

  test("the chart's RBAC comes only from the generated files, for every mode", () => {
    const rbac = templates.find((t) => t.name === "rbac.yaml")!.text;
    for (const file of [
      "rules-full",
      "rules-least-privilege",
      "rules-no-secrets",
      "rules-namespace",
      "rules-kube-system",
    ])
      expect(rbac).toContain(`.Files.Get "files/${file}.yaml"`);
    expect(rbac).not.toMatch(/^\s*-\s*apiGroups:/m);
  });
});
