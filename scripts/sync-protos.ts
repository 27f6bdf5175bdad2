/**
 * Writes src/kube/protobuf/schema.generated.json (issue 55): the protobuf schema of the built-in kinds mon
 * watches, as kube-apiserver v1.32 serves them — every message reachable from those kinds, their lists and the
 * watch event, with each field's number, JSON name, type and rule — taken from Kubernetes' own `generated.proto`
 * files (k8s.io/api and k8s.io/apimachinery at one tag). The repository keeps the result, so a clone builds and
 * decodes without them (air-gapped). Usage:
 *   bun scripts/sync-protos.ts --api <k8s.io/api git dir> --apimachinery <git dir> [--tag v0.32.9]
 *   bun scripts/sync-protos.ts --check   (the kept schema is well formed and names every watched kind)
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import protobuf from "protobufjs";
import { KNOWN_KINDS } from "../src/kube/kinds.ts";
import { KIND_MESSAGES, type ProtoField, type ProtoSchema, SCHEMA_PATH } from "../src/kube/protobuf/schema.ts";

const flag = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
};

const out = join(import.meta.dirname, "..", SCHEMA_PATH);

if (process.argv.includes("--check")) {
  const schema = JSON.parse(readFileSync(out, "utf8")) as ProtoSchema;
  // Every built-in kind mon watches has a message (custom resources, served only as JSON, need none).
  const customResources = new Set(["gateway.networking.k8s.io", "cert-manager.io"]);
  const builtIn = KNOWN_KINDS.filter((k) => !customResources.has(k.group));
  const unmapped = builtIn.filter((k) => !Object.keys(KIND_MESSAGES).some((key) => key.endsWith(`/${k.kind}`)));
  const missing = [
    ...Object.values(KIND_MESSAGES)
      .flatMap((m) => [m, `${m}List`])
      .filter((m) => !schema.messages[m]),
    ...unmapped.map((k) => `for ${k.kind} (KIND_MESSAGES)`),
  ];
  if (missing.length) {
    console.error(`${SCHEMA_PATH}: no message ${missing.join(", ")}: run bun scripts/sync-protos.ts`);
    process.exit(1);
  }
  console.log(`${SCHEMA_PATH}: ${Object.keys(schema.messages).length} messages, every watched kind`);
  process.exit(0);
}

const api = flag("api");
const machinery = flag("apimachinery");
const tag = flag("tag") ?? "v0.32.9";
if (!api || !machinery) {
  console.error("usage: bun scripts/sync-protos.ts --api <k8s.io/api git dir> --apimachinery <git dir> [--tag T]");
  process.exit(2);
}

/** A `generated.proto` at the tag, by its import path (`k8s.io/api/core/v1/generated.proto`). */
function source(importPath: string): string {
  const [dir, path] = importPath.startsWith("k8s.io/api/")
    ? [api, importPath.slice("k8s.io/api/".length)]
    : [machinery, importPath.slice("k8s.io/apimachinery/".length)];
  return execFileSync("git", ["--git-dir", dir as string, "show", `${tag}:${path}`], { encoding: "utf8" });
}

const root = new protobuf.Root();
const loaded = new Set<string>();
const load = (importPath: string) => {
  if (loaded.has(importPath)) return;
  loaded.add(importPath);
  const parsed = protobuf.parse(source(importPath), root, { keepCase: true });
  for (const next of parsed.imports ?? []) load(next);
};
const groups = new Set(Object.values(KIND_MESSAGES).map((m) => m.split(".").slice(3, -1).join("/")));
for (const group of groups) load(`k8s.io/api/${group}/generated.proto`);
load("k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto");
root.resolveAll();

/**
 * What the Go types say of each field that the protobuf schema cannot (their `json` and `protobuf` struct tags),
 * by `<message full name>:<field number>`: `e` omitted from JSON when empty (a non-pointer with `omitempty`),
 * `p` a pointer (present when set, even to zero), `i` inlined into its parent in JSON (an embedded struct), `n`
 * written `null` in JSON when unset (a pointer, list or map without `omitempty`).
 */
function goFlags(goSource: string, pkg: string): Map<string, string> {
  const flags = new Map<string, string>();
  for (const block of goSource.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
    const [, struct, body] = block;
    for (const line of (body ?? "").split("\n")) {
      const tag = /^\s*(?:\w+\s+)?(\S+)\s+`json:"([^"]*)"[^`]*protobuf:"\w+,(\d+),/.exec(line);
      if (!tag) continue;
      const [, type, json, number] = tag;
      const [name, ...options] = (json ?? "").split(",");
      const omitempty = options.includes("omitempty");
      const nullable = /^(\*|\[\]|map\[)/.test(type ?? "") && type !== "[]byte";
      const flag = [
        omitempty && !type?.startsWith("*") ? "e" : "",
        type?.startsWith("*") ? "p" : "",
        options.includes("inline") && !name ? "i" : "",
        !omitempty && nullable && name ? "n" : "",
      ].join("");
      if (flag) flags.set(`${pkg}.${struct}:${number}`, flag);
    }
  }
  return flags;
}

const flags = new Map<string, string>();
for (const group of groups)
  for (const [k, v] of goFlags(source(`k8s.io/api/${group}/types.go`), `k8s.io.api.${group.replace("/", ".")}`))
    flags.set(k, v);
for (const [k, v] of goFlags(
  source("k8s.io/apimachinery/pkg/apis/meta/v1/types.go"),
  "k8s.io.apimachinery.pkg.apis.meta.v1",
))
  flags.set(k, v);

const messages: Record<string, ProtoField[]> = {};
const visit = (name: string) => {
  if (messages[name]) return;
  const type = root.lookupType(name);
  const fields: ProtoField[] = [];
  messages[name] = fields;
  for (const field of type.fieldsArray) {
    const inner = field.resolvedType instanceof protobuf.Type ? field.resolvedType.fullName.slice(1) : undefined;
    const rule = field.map ? "map" : field.repeated ? "repeated" : "optional";
    const flag = flags.get(`${name}:${field.id}`) ?? "";
    const entry: ProtoField =
      field instanceof protobuf.MapField
        ? [field.id, field.name, inner ?? field.type, rule, flag, field.keyType]
        : [field.id, field.name, inner ?? field.type, rule, flag];
    fields.push(entry);
    if (inner) visit(inner);
  }
  fields.sort((a, b) => a[0] - b[0]);
};
for (const message of Object.values(KIND_MESSAGES)) {
  visit(message);
  visit(`${message}List`);
}
for (const extra of [
  "k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent",
  "k8s.io.apimachinery.pkg.apis.meta.v1.Status",
  "k8s.io.apimachinery.pkg.runtime.Unknown",
])
  visit(extra);

const sorted = Object.fromEntries(Object.entries(messages).sort(([a], [b]) => a.localeCompare(b)));
const schema: ProtoSchema = { source: `k8s.io/api and k8s.io/apimachinery ${tag}`, messages: sorted };
writeFileSync(out, `${JSON.stringify(schema, null, 0).replace(/\],"/g, '],\n"')}\n`);
console.log(`wrote ${SCHEMA_PATH}: ${Object.keys(sorted).length} messages from ${tag}`);
