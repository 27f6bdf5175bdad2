import type * as v from "valibot";
import { listItem, objectEntries } from "./describe.ts";

/**
 * Dotted paths of keys in `data` that `schema` does not declare (spec 2.1: unknown keys warn, never fail).
 * Lists of objects are checked item by item (`silences.0.reson`). Map-typed entries (like `alert`) are open:
 * their keys are checked by their owners.
 */
export function unknownKeys(schema: v.GenericSchema, data: unknown, prefix = ""): string[] {
  const entries = objectEntries(schema);
  if (!entries || !isRecord(data)) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const child = entries[key];
    if (!child) out.push(path);
    else if (objectEntries(child)) out.push(...unknownKeys(child, value, path));
    else {
      const item = listItem(child);
      if (item && objectEntries(item) && Array.isArray(value))
        for (const [i, element] of value.entries()) out.push(...unknownKeys(item, element, `${path}.${i}`));
    }
  }
  return out;
}

/** The declared key closest to an unknown dotted key (edit distance at most 2 on its last segment), if any. */
export function suggestKey(schema: v.GenericSchema, dotted: string): string | undefined {
  const parts = dotted.split(".");
  let current: v.GenericSchema | undefined = schema;
  for (const part of parts.slice(0, -1)) {
    if (!current) break;
    if (/^\d+$/.test(part)) current = listItem(current);
    else current = objectEntries(current)?.[part];
  }
  const entries = current ? objectEntries(current) : undefined;
  return closestName(parts[parts.length - 1] ?? "", Object.keys(entries ?? {}));
}

/** The name of `names` closest to `name`, ignoring letter case (edit distance at most 2), if any. */
export function closestName(name: string, names: Iterable<string>): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of names) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= 2 && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

/** Levenshtein distance between two short strings. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] ?? 0;
      row[j] = Math.min(above + 1, (row[j - 1] ?? 0) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length] ?? 0;
}

// --- internal ---

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
