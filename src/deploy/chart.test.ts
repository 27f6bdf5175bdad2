import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { parse } from "yaml";
import Ajv from "ajv";
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
      // The naming helper (nameOverride), the security floor (omit), the configuration checksum.
      "contains",
      "omit",
      "lookup",
      "list",
      "append",
      "join",
      // The incidents page (issue 44): a token generated once, and diagnostics merged into config.values.
      "randAlphaNum",
      "b64enc",
      "deepCopy",
      "dict",
      "mergeOverwrite",
      "true",
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

  // Issue 29.14: what Helm users expect of a chart, checked without a Helm binary.
  const schema = JSON.parse(readFileSync(join(CHART, "values.schema.json"), "utf8"));
  const helm = new Ajv({ strict: false, allErrors: true }).compile(schema);
  const withValues = (patch: (v: Record<string, any>) => void) => {
    const copy = structuredClone(values) as Record<string, any>;
    patch(copy);
    return helm(copy);
  };

  test("values.schema.json, as Helm applies it: config.values is checked against the configuration schema", () => {
    expect(helm(values)).toBe(true);
    expect(withValues((v) => (v.config.values = { app: { clusterName: "prod", logFormatter: "json" } }))).toBe(true);
    expect(withValues((v) => (v.config.values = { app: { logFormatter: "logfmt" } }))).toBe(false);
    expect(withValues((v) => (v.config.values = { apps: { clusterName: "prod" } }))).toBe(false);
    expect(withValues((v) => (v.config.values = { alert: { slakc: { webhook: "${file:/etc/mon/hook}" } } }))).toBe(
      false,
    );
  });

  test("a misspelt key anywhere in config.values fails Helm's check, where the same values without it pass (issue 52 item 4)", () => {
    expect(withValues((v) => (v.config.values = { app: { clusterNme: "prod" } }))).toBe(false);
    const silence = { namespaces: ["staging"], reasons: ["CrashLoopBackOff"] };
    expect(withValues((v) => (v.config.values = { silences: [silence] }))).toBe(true);
    const { namespaces, ...scopeLost } = silence;
    expect(withValues((v) => (v.config.values = { silences: [{ ...scopeLost, namespace: namespaces }] }))).toBe(false);
    // Every object of the configuration that declares its keys, at any depth: an empty one passes, one with a key
    // it does not declare fails. Maps (runbooks, templates, a route's labels) stay open.
    const config = schema.properties.config.properties.values;
    const objects: { path: (string | number)[]; declared: string[] }[] = [];
    const walk = (node: any, path: (string | number)[]) => {
      if (!node || typeof node !== "object") return;
      if (node.type === "array" && node.items) return walk(node.items, [...path, 0]);
      for (const branch of node.anyOf ?? []) walk(branch, path);
      if (!node.properties) return;
      if (node.additionalProperties === false) objects.push({ path, declared: Object.keys(node.properties) });
      for (const [key, child] of Object.entries(node.properties)) walk(child, [...path, key]);
    };
    walk(config, []);
    expect(objects.length).toBeGreaterThan(100);
    const at = (path: (string | number)[], leaf: object) =>
      path.reduceRight<unknown>((inner, key) => (typeof key === "number" ? [inner] : { [key]: inner }), leaf);
    let checked = 0;
    for (const { path, declared } of objects) {
      const typo = `${declared[0] ?? "x"}Typo`;
      if (!withValues((v) => (v.config.values = at(path, {})))) continue; // needs keys of its own: not empty-valid
      checked++;
      expect([path.join("."), withValues((v) => (v.config.values = at(path, { [typo]: 1 })))]).toEqual([
        path.join("."),
        false,
      ]);
    }
    expect(checked).toBeGreaterThan(25);
  });

  test("the security context adds to spec 5.6's floor and cannot weaken it", () => {
    expect(withValues((v) => (v.podSecurityContext = { runAsUser: null, supplementalGroups: [1000] }))).toBe(true);
    expect(withValues((v) => (v.containerSecurityContext = { capabilities: { drop: ["ALL"] } }))).toBe(true);
    for (const weaker of [
      (v: Record<string, any>) => (v.podSecurityContext.runAsNonRoot = false),
      (v: Record<string, any>) => (v.podSecurityContext.seccompProfile = { type: "Unconfined" }),
      (v: Record<string, any>) => (v.containerSecurityContext = { allowPrivilegeEscalation: true }),
      (v: Record<string, any>) => (v.containerSecurityContext = { readOnlyRootFilesystem: false }),
      (v: Record<string, any>) => (v.containerSecurityContext = { privileged: true }),
      (v: Record<string, any>) => (v.containerSecurityContext = { capabilities: { add: ["NET_ADMIN"] } }),
      (v: Record<string, any>) => (v.containerSecurityContext = { capabilities: { drop: ["NET_RAW"] } }),
    ])
      expect(withValues(weaker)).toBe(false);
    // The template writes the floor itself and leaves the floor's fields out of what values add.
    const deployment = templates.find((t) => t.name === "deployment.yaml")!.text;
    for (const floor of [
      "runAsNonRoot: true",
      "type: RuntimeDefault",
      "allowPrivilegeEscalation: false",
      "readOnlyRootFilesystem: true",
      "privileged: false",
      'drop: ["ALL"]',
      'omit .Values.podSecurityContext "runAsNonRoot" "seccompProfile"',
      'omit .Values.containerSecurityContext "allowPrivilegeEscalation" "readOnlyRootFilesystem" "privileged" "capabilities"',
    ])
      expect(deployment).toContain(floor);
  });

  test("names, the ServiceAccount's annotations, the checksum of your own Secrets, NOTES.txt", () => {
    const helpers = templates.find((t) => t.name === "_helpers.tpl")!.text;
    expect(helpers).toContain(".Values.fullnameOverride");
    expect(helpers).toContain(".Values.nameOverride");
    expect(helpers).toContain('lookup "v1" "Secret" $.Release.Namespace');
    expect(helpers).toMatch(/\.Values\.config\.existingSecret[\s\S]*\.Values\.config\.credentialSecrets/);
    expect(templates.find((t) => t.name === "deployment.yaml")!.text).toContain(
      'checksum/config: {{ include "mon.configChecksum" . }}',
    );
    expect(templates.find((t) => t.name === "serviceaccount.yaml")!.text).toContain(
      "with .Values.serviceAccount.annotations",
    );
    const notes = templates.find((t) => t.name === "NOTES.txt")!.text;
    for (const line of ["port-forward", "localhost:8060/health", "mon.configSecret", "mon lint", "Uninstalling"])
      expect(notes).toContain(line);
    // Every object is named by the helper, so fullnameOverride names them all.
    for (const t of templates.filter((t) => t.name.endsWith(".yaml") && t.name !== "namespace.yaml"))
      for (const name of t.text.matchAll(/^ {2}name: (.*)$/gm))
        expect(name[1], `${t.name}: ${name[1]}`).toMatch(/include "mon\.(fullname|configSecret)"|kube-system/);
  });

  test("one sizing rule: values.yaml, the schema's description and docs/install.md say the same", () => {
    const install = readFileSync(join(CHART, "..", "..", "..", "docs", "install.md"), "utf8");
    const valuesText = readFileSync(join(CHART, "values.yaml"), "utf8");
    const readme = readFileSync(join(CHART, "README.md"), "utf8");
    for (const text of [install, valuesText, readme]) expect(text).toContain("2 × (100 MiB + 7.5 KiB");
    // The flood term (issue 30): what an outage costs while mon tells it.
    for (const text of [install, valuesText, readme])
      expect(text).toMatch(/\+ 30 KiB (×|per) pods? (that )?can fail at once/);
    for (const text of [install, valuesText]) expect(text).toContain("46,000 pods of which 5,000 fail at once");
    for (const text of [install, valuesText, readme]) expect(text).not.toMatch(/13 KiB/);
  });
});
