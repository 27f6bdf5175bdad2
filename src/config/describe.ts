import * as v from "valibot";
import type { KeyMeta } from "./schema.ts";

type Node = v.GenericSchema & {
  type: string;
  entries?: Record<string, Node>;
  wrapped?: Node;
  item?: Node;
  key?: Node;
  value?: Node;
  options?: readonly unknown[];
  pipe?: readonly (v.GenericSchema | { kind: string; type: string; requirement?: unknown })[];
  default?: unknown;
};

/** One documented key of a schema, as the reference table and the feature catalog show it. */
export interface KeyRow {
  /** Dotted path; list items are `[]` (`silences[].reasons`), map values `<name>` (`runbooks.<name>`). */
  readonly key: string;
  /** Human type: `integer`, `bool`, `string`, `list of string`, `map string → URL`, `text` or `json`, … */
  readonly type: string;
  /** The default as YAML would show it, or undefined when there is none. */
  readonly default?: unknown;
  readonly description: string;
  readonly meta: KeyMeta;
}

/**
 * Walks a configuration schema and lists every documented key (one with a description), depth first in
 * declaration order. Objects are descended into; a list of objects is descended into as `key[].field`.
 */
export function describeSchema(schema: v.GenericSchema, prefix = ""): KeyRow[] {
  const rows: KeyRow[] = [];
  const entries = objectEntries(schema as Node);
  if (!entries) return rows;
  for (const [name, child] of Object.entries(entries)) {
    const key = prefix ? `${prefix}.${name}` : name;
    const { inner, defaultValue } = unwrap(child);
    const description = v.getDescription(inner as never) ?? "";
    const { format: _format, ...meta } = (v.getMetadata(inner as never) ?? {}) as KeyMeta;
    const base = baseOf(inner);
    const nested = objectEntries(base);
    if (description) {
      rows.push({
        key,
        type: typeName(inner),
        ...(defaultValue !== undefined ? { default: defaultValue } : {}),
        description,
        meta,
      });
    }
    if (nested) rows.push(...describeSchema(base, key));
    else if (base.type === "array" && base.item && objectEntries(baseOf(unwrap(base.item).inner)))
      rows.push(...describeSchema(baseOf(unwrap(base.item).inner), `${key}[]`));
  }
  return rows;
}

/** Object entries of a schema (through optional wrappers and pipes), if it is an object. */
export function objectEntries(schema: Node | v.GenericSchema): Record<string, Node> | undefined {
  const base = baseOf(unwrap(schema as Node).inner);
  return base.type === "object" || base.type === "strict_object" || base.type === "loose_object"
    ? base.entries
    : undefined;
}

/** The element schema of a list (through wrappers), if the schema is a list. */
export function listItem(schema: Node | v.GenericSchema): Node | undefined {
  const base = baseOf(unwrap(schema as Node).inner);
  return base.type === "array" ? base.item : undefined;
}

// --- internal ---

/** Types of every action in a schema's pipe, through pipes nested in pipes. */
function actionTypes(schema: Node): string[] {
  const out: string[] = [];
  for (const item of schema.pipe ?? []) {
    const node = item as Node & { kind?: string };
    if (node.kind === "schema") {
      if (node !== schema) out.push(...actionTypes(node));
    } else out.push(node.type);
  }
  return out;
}

function unwrap(schema: Node): { inner: Node; defaultValue?: unknown } {
  let inner = schema;
  let defaultValue: unknown;
  while (inner.type === "optional" || inner.type === "nullish" || inner.type === "nullable") {
    if (inner.default !== undefined && defaultValue === undefined)
      defaultValue = typeof inner.default === "function" ? (inner.default as () => unknown)() : inner.default;
    inner = inner.wrapped as Node;
  }
  return { inner, ...(defaultValue !== undefined ? { defaultValue } : {}) };
}

/** A piped schema keeps its root schema's `type` and fields; pipes are read through `v.getDescription`. */
function baseOf(schema: Node): Node {
  return schema;
}

function typeName(schema: Node): string {
  const base = baseOf(schema);
  const format = (v.getMetadata(schema as never) as KeyMeta | undefined)?.format;
  if (format) return format === "url" ? "URL" : format;
  switch (base.type) {
    case "number":
      return actionTypes(base).includes("integer") ? "integer" : "number";
    case "boolean":
      return "bool";
    case "string":
      return "string";
    case "picklist":
      return (base.options ?? []).map((o) => `\`${String(o)}\``).join(" or ");
    case "array":
      return `list of ${base.item ? typeName(unwrap(base.item).inner) : "any"}`;
    case "record":
      return `map string → ${base.value ? typeName(unwrap(base.value).inner) : "any"}`;
    case "object":
      return "object";
    default:
      return base.type;
  }
}
