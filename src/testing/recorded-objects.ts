import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { KubeObject } from "../model/inventory.ts";
import { SHAPES } from "../model/shapes.ts";
import { TIMELINES_DIR } from "../sim/timeline.ts";

/** The recorded kube-apiserver v1.32 exchanges and timelines the repository carries. */
export const RECORDED_DIR = join(TIMELINES_DIR, "..");

/** Every object of a declared kind found in the recorded exchanges (list items, watch events, bodies). */
export function recordedObjects(dir: string = RECORDED_DIR): KubeObject[] {
  const out = new Map<string, KubeObject>();
  const visit = (value: unknown, implied?: string): void => {
    if (Array.isArray(value)) {
      for (const v of value) visit(v, implied);
      return;
    }
    if (typeof value !== "object" || value === null) return;
    const o = value as KubeObject;
    const kind = typeof o.kind === "string" ? o.kind : implied;
    if (kind && kind in SHAPES && typeof o.metadata?.name === "string") {
      const object = { ...structuredClone(o), kind };
      out.set(`${kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`, object);
      return;
    }
    const itemKind = typeof o.kind === "string" && o.kind.endsWith("List") ? o.kind.slice(0, -4) : undefined;
    for (const [field, v] of Object.entries(o)) visit(v, field === "items" ? itemKind : undefined);
  };
  const walk = (path: string): void => {
    for (const entry of readdirSync(path)) {
      const file = join(path, entry);
      if (statSync(file).isDirectory()) walk(file);
      else if (/\.(json|jsonl|ndjson)$/.test(entry)) {
        const text = readFileSync(file, "utf8");
        const docs = entry.endsWith(".json") ? [text] : text.split("\n").filter((l) => l.trim());
        for (const doc of docs) {
          try {
            visit(JSON.parse(doc));
          } catch {
            // A recorded body that is not JSON (a 400's text) holds no object.
          }
        }
      }
    }
  };
  walk(dir);
  return [...out.values()];
}
