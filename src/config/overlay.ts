import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { parseAllDocuments } from "yaml";
import type { ConfigProblem } from "./errors.ts";

/** The API group of the MonConfig resource ({crd_group}, spec 2.5): the group of mon's annotations. */
export const CRD_GROUP = "mon.io";

/** The version mon reads MonConfig objects in (objects written as v1alpha1 are served as it, spec 9.1). */
export const CRD_VERSION = "v1beta1";

/**
 * One MonConfig object (spec 2.5) as the overlay reads it: its namespace and name (for messages and the merge
 * order) and its `spec`, a partial configuration.
 */
export interface OverlaySource {
  readonly namespace: string;
  readonly name: string;
  readonly spec: Readonly<Record<string, unknown>>;
}

/**
 * Keys the overlay may not set (spec 2.5): provider settings and credentials, the heartbeat URL, the health
 * server (with /status and the diagnostics token), kubelet TLS verification, the license and the overlay switch
 * itself. Dotted paths of the configuration; the CRD's schema leaves them out (src/deploy/crd.ts) and mon refuses
 * them again here, for a definition installed from elsewhere.
 */
export const NOT_IN_OVERLAY = [
  "alert",
  "healthCheck",
  "heartbeatMonitor.url",
  "kubelet.insecureSkipVerify",
  "license",
  "crd",
] as const;

/** How a MonConfig is named in messages and lint output: `MonConfig <namespace>/<name>`. */
export function overlayName(source: Pick<OverlaySource, "namespace" | "name">): string {
  return `MonConfig ${source.namespace}/${source.name}`;
}

/**
 * What makes an overlay invalid on its own, before it is merged (spec 2.5, 7.2): a forbidden key, or a
 * `${VAR}` / `${file:}` reference — the overlay's values are taken literally, because whoever may edit a
 * MonConfig must not make mon read its environment or its files into a message. Each problem names the object
 * and the key; `file` is the object's name.
 */
export function overlayProblems(sources: readonly OverlaySource[]): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  for (const source of sources) {
    const file = overlayName(source);
    for (const key of NOT_IN_OVERLAY) {
      if (!has(source.spec, key)) continue;
      const message = `spec.${key}: not settable in the overlay (spec 2.5); set it in the mounted configuration file`;
      out.push({ level: "error", rule: "overlay_forbidden", key, message, file });
    }
    for (const key of references(source.spec, "")) {
      const message = `spec.${key}: \${...} references are not expanded in the overlay; set the value itself, or use the mounted file`;
      out.push({ level: "error", rule: "overlay_forbidden", key, message, file });
    }
  }
  return out;
}

/**
 * The configuration data with every overlay merged over it, in name order (a later name wins): objects merge
 * key by key, anything else (a list, a string, a number) replaces the file's value. Pure; returns a new object.
 */
export function mergeOverlays(
  data: Readonly<Record<string, unknown>>,
  sources: readonly OverlaySource[],
): Record<string, unknown> {
  let out = structuredClone(data) as Record<string, unknown>;
  for (const source of [...sources].sort((a, b) => a.name.localeCompare(b.name)))
    out = merge(out, source.spec) as Record<string, unknown>;
  return out;
}

/**
 * Reads MonConfig objects from a YAML file (one or more documents, as `kubectl apply -f` takes them) for
 * `mon lint --overlay`: every document of kind MonConfig in {crd_group} becomes a source (namespace `mon` when
 * the document names none); an unreadable file, a YAML error or another kind is a problem naming the file.
 */
export function readOverlayFile(path: string): { sources: OverlaySource[]; problems: ConfigProblem[] } {
  const file = basename(path);
  const problem = (rule: ConfigProblem["rule"], message: string): ConfigProblem => ({
    level: "error",
    rule,
    key: "",
    message,
    file,
  });
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    return { sources: [], problems: [problem("file_unreadable", `cannot read overlay file ${path} (${code})`)] };
  }
  const sources: OverlaySource[] = [];
  const problems: ConfigProblem[] = [];
  for (const doc of parseAllDocuments(text)) {
    if ("errors" in doc && doc.errors.length) {
      problems.push(problem("yaml_syntax", doc.errors[0]!.message.split("\n")[0]!));
      continue;
    }
    const object = doc.toJSON() as {
      apiVersion?: string;
      kind?: string;
      metadata?: { name?: string; namespace?: string };
      spec?: unknown;
    } | null;
    if (!object) continue;
    if (object.kind !== "MonConfig" || !String(object.apiVersion ?? "").startsWith(`${CRD_GROUP}/`)) {
      problems.push(
        problem("invalid_value", `${object.kind ?? "a document"} is not a MonConfig (${CRD_GROUP}/${CRD_VERSION})`),
      );
      continue;
    }
    const spec = object.spec && typeof object.spec === "object" && !Array.isArray(object.spec) ? object.spec : {};
    sources.push({
      namespace: object.metadata?.namespace ?? "mon",
      name: object.metadata?.name ?? "",
      spec: spec as OverlaySource["spec"],
    });
  }
  return { sources, problems };
}

// --- internal ---

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function merge(base: unknown, over: unknown): unknown {
  if (!isRecord(base) || !isRecord(over)) return structuredClone(over);
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over))
    out[key] = key in base ? merge(base[key], value) : structuredClone(value);
  return out;
}

function has(data: Readonly<Record<string, unknown>>, dotted: string): boolean {
  let node: unknown = data;
  for (const part of dotted.split(".")) {
    if (!isRecord(node) || !(part in node)) return false;
    node = node[part];
  }
  return true;
}

function references(value: unknown, key: string): string[] {
  if (typeof value === "string") return value.includes("${") ? [key] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => references(item, `${key}.${i}`));
  if (isRecord(value)) return Object.entries(value).flatMap(([k, item]) => references(item, key ? `${key}.${k}` : k));
  return [];
}
