import { compileCel, type CelRule } from "./cel.ts";

/** A structural schema node (apiextensions.k8s.io/v1 `JSONSchemaProps`), as a CustomResourceDefinition writes it. */
export type SchemaNode = Readonly<Record<string, any>>;

/** One validation failure, as kube-apiserver lists it in a 422 Status's `details.causes`. */
export interface SchemaCause {
  readonly field: string;
  readonly message: string;
  readonly reason: "FieldValueInvalid" | "FieldValueTypeInvalid" | "FieldValueRequired" | "FieldValueNotSupported";
}

/**
 * Prunes and validates a custom resource against its version's `openAPIV3Schema` as kube-apiserver does
 * (recorded in testdata crd/13 and crd/14): fields the schema does not declare are dropped (unless
 * `x-kubernetes-preserve-unknown-fields`), null values of non-nullable fields are dropped, then `type`,
 * `enum`, `minimum`/`maximum`, `minLength`/`maxLength`, `pattern`, `minItems`/`maxItems`, `required` and
 * `x-kubernetes-validations` (the CEL subset of cel.ts) are checked. `metadata`, `apiVersion` and `kind` are the
 * API server's. Returns the pruned object and the causes (empty when valid); never throws for bad input.
 */
export function admitCustomResource(
  object: Record<string, unknown>,
  schema: SchemaNode,
): { object: Record<string, unknown>; causes: SchemaCause[] } {
  const causes: SchemaCause[] = [];
  const { metadata, apiVersion, kind, ...rest } = object;
  const body = check(rest, { ...schema, properties: { ...(schema.properties ?? {}) } }, "", causes) as Record<
    string,
    unknown
  >;
  return { object: { apiVersion, kind, metadata, ...body }, causes };
}

/**
 * Compiles every `x-kubernetes-validations` rule of a schema, as kube-apiserver does when the definition is
 * written; throws Error naming the first rule outside the simulator's CEL subset.
 */
export function compileSchemaRules(schema: SchemaNode): void {
  for (const rule of schema["x-kubernetes-validations"] ?? []) ruleOf(rule.rule);
  for (const child of Object.values(schema.properties ?? {})) compileSchemaRules(child as SchemaNode);
  if (schema.items) compileSchemaRules(schema.items);
  if (typeof schema.additionalProperties === "object") compileSchemaRules(schema.additionalProperties);
}

// --- internal ---

const compiled = new Map<string, CelRule>();

function ruleOf(rule: string): CelRule {
  let found = compiled.get(rule);
  if (!found) {
    found = compileCel(rule);
    compiled.set(rule, found);
  }
  return found;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function shown(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

function fits(type: string, value: unknown): boolean {
  const actual = typeName(value);
  return actual === type || (type === "number" && actual === "integer");
}

function check(value: unknown, schema: SchemaNode, path: string, causes: SchemaCause[]): unknown {
  const at = path || "<root>";
  const invalid = (message: string, reason: SchemaCause["reason"] = "FieldValueInvalid") =>
    causes.push({ field: at, message, reason });
  if (schema.type && !fits(schema.type, value)) {
    invalid(
      `Invalid value: "${typeName(value)}": ${at} in body must be of type ${schema.type}: "${typeName(value)}"`,
      "FieldValueTypeInvalid",
    );
    return value;
  }
  let out = value;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const properties = schema.properties as Record<string, SchemaNode> | undefined;
    const additional = schema.additionalProperties as SchemaNode | boolean | undefined;
    const keep = schema["x-kubernetes-preserve-unknown-fields"] === true;
    const next: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(record)) {
      const childSchema = properties?.[key] ?? (typeof additional === "object" ? additional : undefined);
      const childPath = path ? `${path}.${key}` : key;
      if (!childSchema) {
        if (keep || additional === true) next[key] = child;
        continue;
      }
      if (child === null && !childSchema.nullable) continue;
      next[key] = check(child, childSchema, childPath, causes);
    }
    for (const key of schema.required ?? [])
      if (!(key in next))
        causes.push({ field: path ? `${path}.${key}` : key, message: "Required value", reason: "FieldValueRequired" });
    out = next;
  }
  if (Array.isArray(value)) {
    if (schema.items) out = value.map((item, i) => check(item, schema.items, `${path}[${i}]`, causes));
    if (schema.minItems !== undefined && value.length < schema.minItems)
      invalid(`Invalid value: ${value.length}: ${at} in body should have at least ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      invalid(`Too many: ${value.length}: must have at most ${schema.maxItems} items`);
  }
  if (schema.enum && !schema.enum.some((e: unknown) => e === value))
    invalid(
      `Unsupported value: ${shown(value)}: supported values: ${schema.enum.map((e: unknown) => shown(e)).join(", ")}`,
      "FieldValueNotSupported",
    );
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum)
      invalid(`Invalid value: ${value}: ${at} in body should be greater than or equal to ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum)
      invalid(`Invalid value: ${value}: ${at} in body should be less than or equal to ${schema.maximum}`);
  }
  if (typeof value === "string") {
    if (schema.minLength !== undefined && value.length < schema.minLength)
      invalid(`Invalid value: ${shown(value)}: ${at} in body should be at least ${schema.minLength} chars long`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      invalid(`Too long: may not be more than ${schema.maxLength} bytes`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value))
      invalid(`Invalid value: ${shown(value)}: ${at} in body should match '${schema.pattern}'`);
  }
  for (const rule of schema["x-kubernetes-validations"] ?? []) {
    if (!ruleOf(rule.rule)(out))
      invalid(`Invalid value: "${typeName(value)}": ${rule.message ?? `failed rule: ${rule.rule}`}`);
  }
  return out;
}
