import type { KubeObject } from "../model/inventory.ts";

/**
 * True when `next`, a later version of the object `kept` (both admitted: plain JSON values, projected to
 * their kind's shape), differs from it in nothing mon keeps but its `metadata.resourceVersion` and the time of
 * a write to a subresource (`managedFields[].time` of an entry with a `subresource`: what-changed reads only
 * when the spec was written, model/change.ts). Such a version (a status write that changed no kept field, say a
 * pod's `qosClass` or a container's `containerID` re-reported, a writer's new time) costs no new object and no index
 * update (issue 42, item 2). The status is compared first: it is where a change usually is, and the walk ends at
 * the first difference.
 */
export function sameKept(kept: KubeObject, next: KubeObject): boolean {
  if (!sameKeys(kept, next)) return false;
  if (!same(kept.status, next.status)) return false;
  for (const k in next) {
    if (k === "status") continue;
    if (k === "metadata" ? !sameMetadata(kept.metadata, next.metadata) : !same(kept[k], next[k])) return false;
  }
  return true;
}

// --- internal ---

type Json = Record<string, unknown>;

function sameMetadata(a: Json | undefined, b: Json | undefined): boolean {
  if (!isObject(a) || !isObject(b)) return same(a, b);
  if (!sameKeys(a, b)) return false;
  for (const k in b) {
    if (k === "resourceVersion") continue;
    if (k === "managedFields" ? !sameWriters(a[k], b[k]) : !same(a[k], b[k])) return false;
  }
  return true;
}

/** The same writers in the same order; a subresource writer's time is not compared. */
function sameWriters(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return same(a, b);
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as unknown;
    const y = b[i] as unknown;
    if (!isObject(x) || !isObject(y) || !sameKeys(x, y)) return same(x, y);
    for (const k in y) if (!(k === "time" && y.subresource) && !same(x[k], y[k])) return false;
  }
  return true;
}

/** Deep equality of JSON values (objects with the same keys in any order, arrays item by item). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || !sameKeys(a as Json, b as Json)) return false;
  for (const k in b as Json) if (!same((a as Json)[k], (b as Json)[k])) return false;
  return true;
}

/** The same number of keys, each of `b` present in `a` (so the same set). */
function sameKeys(a: Json, b: Json): boolean {
  let n = 0;
  for (const _ in a) n++;
  for (const k in b) {
    if (!Object.hasOwn(a, k)) return false;
    n--;
  }
  return n === 0;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
