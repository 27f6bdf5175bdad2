import type { KubeObject } from "../model/inventory.ts";
import type { Shape } from "../model/projection.ts";
import { SHAPES } from "../model/shapes.ts";

/**
 * Projects a served object to its kind's declared shape (model/shapes.ts, issue 42): a new object holding
 * only the fields mon reads, sharing their values with `object`; every other field is dropped, so what the
 * Inventory keeps is bounded by the declaration, not by what the cluster writes. A field (or a list's item) the
 * shape reads as an object or a list that holds something else is dropped (the door, kube/admit.ts, then checks the kept
 * values). Kinds without a declared shape (custom resources) are returned as they are.
 */
export function project(kind: string, object: KubeObject): KubeObject {
  if (PROJECTED.has(object)) return object;
  const shape = (SHAPES as Record<string, Shape | undefined>)[kind];
  if (!shape || !isPlainObject(object)) return object;
  return projectValue(object, shape) as KubeObject;
}

/** Objects decoded straight into their kind's shape (protobuf, issue 55): projecting them again would copy them. */
const PROJECTED = new WeakSet<object>();

/**
 * Marks `object`, built to its kind's declared shape already (a protobuf decoder's output), so `project` hands
 * it on as it is; drops the `kubectl apply` annotation as projecting does. Returns `object`.
 */
export function asProjected<T extends object>(object: T): T {
  const annotations = (object as { metadata?: { annotations?: Record<string, unknown> } }).metadata?.annotations;
  if (annotations && LAST_APPLIED in annotations) delete annotations[LAST_APPLIED];
  PROJECTED.add(object);
  return object;
}

/** The metadata annotation `kubectl apply` writes: the whole last applied object again, never read by mon. */
export const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

// --- internal ---

function projectValue(value: unknown, shape: Shape): unknown {
  if (shape === true) return value;
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return undefined;
    const item = shape[0] as Shape;
    if (item === true) return value;
    // An item of another shape than declared is dropped, as a field is.
    const out: unknown[] = [];
    for (const v of value) {
      const kept = projectValue(v, item);
      if (kept !== undefined) out.push(kept);
    }
    return out;
  }
  if (!isPlainObject(value)) return undefined;
  const out: Record<string, unknown> = {};
  for (const field in shape) {
    const v = value[field];
    if (v === undefined) continue;
    const kept = projectValue(v, (shape as Record<string, Shape>)[field] as Shape);
    if (kept !== undefined) out[field] = field === "annotations" ? withoutLastApplied(kept) : kept;
  }
  return out;
}

function withoutLastApplied(annotations: unknown): unknown {
  if (!isPlainObject(annotations) || !(LAST_APPLIED in annotations)) return annotations;
  const { [LAST_APPLIED]: _dropped, ...rest } = annotations;
  return rest;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
