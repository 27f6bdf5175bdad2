import type { KubeObject } from "../model/inventory.ts";

/**
 * Trims `metadata.managedFields` as informer caches keep it (spec 6.9): only the most recent writer entry,
 * plus the most recent spec writer when different, each without its field set. Everything else is intact.
 * Mutates and returns `object`.
 */
export function trimManagedFields(object: KubeObject): KubeObject {
  const entries = object?.metadata?.managedFields as Record<string, unknown>[] | undefined;
  if (!Array.isArray(entries) || entries.length === 0) return object;
  const byTime = [...entries].sort((a, b) => String(b.time ?? "").localeCompare(String(a.time ?? "")));
  const latest = byTime[0];
  const specWriter = byTime.find((e) => e.subresource !== "status");
  const kept = [latest, specWriter].filter(
    (e, i, all): e is Record<string, unknown> => Boolean(e) && all.indexOf(e) === i,
  );
  object.metadata.managedFields = kept.map(({ fieldsV1: _fields, ...rest }) => rest);
  return object;
}
