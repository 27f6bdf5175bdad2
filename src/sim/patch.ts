import { badRequest, failure } from "./status.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** JSON merge patch (RFC 7386): objects merge, `null` deletes, everything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

/**
 * Strategic merge patch, simplified: a merge patch in which lists of objects with a `name` (containers,
 * conditions keyed by `type`, ...) merge by that key, and `$patch`/`$retainKeys` directives are dropped.
 * Enough for `kubectl apply` and `kubectl patch`; documented as an approximation in docs/simulator.md.
 */
export function strategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith("$")) continue;
    if (value === null) delete out[key];
    else if (Array.isArray(value) && Array.isArray(out[key]) && mergeKeyOf(value) !== undefined)
      out[key] = mergeList(out[key] as unknown[], value, mergeKeyOf(value) ?? "name");
    else out[key] = strategicMergePatch(out[key], value);
  }
  return out;
}

/**
 * JSON patch (RFC 6902): add, remove, replace, move, copy, test. A failed `test` or a missing path gives
 * 422 Invalid, as the apiserver answers (fixtures writes/pod-11).
 */
export function jsonPatch(target: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw badRequest("the JSON patch must be an array of operations");
  let doc = structuredClone(target) as Json;
  for (const op of operations as Record<string, unknown>[]) {
    const path = parsePointer(String(op.path ?? ""));
    switch (op.op) {
      case "add":
        doc = setAt(doc, path, op.value as Json, "add");
        break;
      case "replace":
        getAt(doc, path);
        doc = setAt(doc, path, op.value as Json, "replace");
        break;
      case "remove":
        getAt(doc, path);
        doc = removeAt(doc, path);
        break;
      case "move": {
        const from = parsePointer(String(op.from ?? ""));
        const value = getAt(doc, from);
        doc = setAt(removeAt(doc, from), path, value, "add");
        break;
      }
      case "copy":
        doc = setAt(doc, path, structuredClone(getAt(doc, parsePointer(String(op.from ?? "")))), "add");
        break;
      case "test":
        if (JSON.stringify(getAt(doc, path)) !== JSON.stringify(op.value)) throw rejected();
        break;
      default:
        throw badRequest(`unexpected JSON patch operation: ${String(op.op)}`);
    }
  }
  return doc;
}

// --- internal ---

function rejected() {
  return failure(422, "Invalid", "the server rejected our request due to an error in our request", {});
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function mergeKeyOf(list: unknown[]): string | undefined {
  const first = list[0];
  if (!isObject(first)) return undefined;
  if ("name" in first) return "name";
  if ("type" in first) return "type";
  if ("containerPort" in first) return "containerPort";
  return undefined;
}

function mergeList(current: unknown[], patch: unknown[], key: string): unknown[] {
  const out = [...current];
  for (const item of patch) {
    if (!isObject(item)) continue;
    if (item.$patch === "delete") {
      const at = out.findIndex((c) => isObject(c) && c[key] === item[key]);
      if (at >= 0) out.splice(at, 1);
      continue;
    }
    const at = out.findIndex((c) => isObject(c) && c[key] === item[key]);
    if (at >= 0) out[at] = strategicMergePatch(out[at], item);
    else out.push(strategicMergePatch({}, item));
  }
  return out;
}

function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw rejected();
  return pointer
    .slice(1)
    .split("/")
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function getAt(doc: Json, path: string[]): Json {
  let node: Json = doc;
  for (const part of path) {
    if (Array.isArray(node)) node = node[Number(part)] as Json;
    else if (isObject(node) && part in node) node = node[part] as Json;
    else throw rejected();
    if (node === undefined) throw rejected();
  }
  return node;
}

function setAt(doc: Json, path: string[], value: Json, mode: "add" | "replace"): Json {
  if (path.length === 0) return value;
  const parent = getAt(doc, path.slice(0, -1));
  const last = path[path.length - 1] ?? "";
  if (Array.isArray(parent)) {
    const index = last === "-" ? parent.length : Number(last);
    if (!Number.isInteger(index) || index < 0 || index > parent.length) throw rejected();
    if (mode === "add") parent.splice(index, 0, value);
    else parent[index] = value;
  } else if (isObject(parent)) parent[last] = value;
  else throw rejected();
  return doc;
}

function removeAt(doc: Json, path: string[]): Json {
  const parent = getAt(doc, path.slice(0, -1));
  const last = path[path.length - 1] ?? "";
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else if (isObject(parent)) delete parent[last];
  return doc;
}
