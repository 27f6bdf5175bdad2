import { badRequest } from "./status.ts";

/** A parsed selector: a predicate over an object. */
export type Selector = (object: Record<string, unknown>) => boolean;

type Requirement = { key: string; op: "=" | "!=" | "in" | "notin" | "exists" | "!exists"; values: string[] };

/**
 * Parses a Kubernetes label selector (`a=b,c!=d,e in (x,y),f notin (z),g,!h`).
 * Throws ApiError 400 with kube-apiserver's wording on a syntax error.
 */
export function parseLabelSelector(text: string | null): Selector {
  if (!text) return () => true;
  const requirements = splitTopLevel(text).map(parseRequirement);
  return (object) => {
    const labels = ((object.metadata as Record<string, unknown> | undefined)?.labels ?? {}) as Record<string, string>;
    return requirements.every((req) => matches(req, labels[req.key]));
  };
}

const FIELDS_ALL = ["metadata.name", "metadata.namespace"];
const FIELDS_BY_KIND: Record<string, string[]> = {
  Pod: [
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
  ],
  Node: ["spec.unschedulable"],
  Event: [
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
  ],
  Secret: ["type"],
  Namespace: ["status.phase"],
  ReplicaSet: ["status.replicas"],
  Job: ["status.successful"],
};

/**
 * Parses a field selector for `kind` (`spec.nodeName=n1,status.phase!=Running`). Only the fields the real
 * apiserver indexes for that kind are accepted; any other gives 400 `field label not supported: <field>`.
 */
export function parseFieldSelector(text: string | null, kind: string): Selector {
  if (!text) return () => true;
  const allowed = new Set([...FIELDS_ALL, ...(FIELDS_BY_KIND[kind] ?? [])]);
  const terms = text
    .split(",")
    .filter(Boolean)
    .map((term) => {
      const match = /^([^!=]+)(==|=|!=)(.*)$/.exec(term.trim());
      if (!match) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
      const [, field = "", op, value = ""] = match;
      if (!allowed.has(field)) throw badRequest(`field label not supported: ${field}`);
      return { field, negate: op === "!=", value };
    });
  return (object) => terms.every((t) => (fieldValue(object, t.field) === t.value) !== t.negate);
}

// --- internal ---

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      parts.push(current.trim());
      current = "";
    } else current += ch;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}

function parseRequirement(text: string): Requirement {
  const set = /^(\S+)\s+(in|notin)\s*(.*)$/.exec(text);
  if (set) {
    const [, key = "", op, rest = ""] = set;
    const inner = /^\((.*)\)$/.exec(rest.trim());
    if (!inner)
      throw badRequest(`unable to parse requirement: found '${rest.trim().split(/[\s,]/)[0] ?? ""}' expected: '('`);
    const values = (inner[1] ?? "")
      .split(",")
      .map((v) => v.trim())
      .filter(Boolean);
    return { key: checkKey(key), op: op as "in" | "notin", values };
  }
  const eq = /^([^!=\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(text);
  if (eq) {
    const [, key = "", op, value = ""] = eq;
    return { key: checkKey(key), op: op === "!=" ? "!=" : "=", values: [value] };
  }
  if (/^!\s*\S+$/.test(text)) return { key: checkKey(text.slice(1).trim()), op: "!exists", values: [] };
  if (/^\S+$/.test(text)) return { key: checkKey(text), op: "exists", values: [] };
  throw badRequest(`unable to parse requirement: found '${text}', expected: ',' or 'end of string'`);
}

function checkKey(key: string): string {
  if (!/^([a-z0-9.-]+\/)?[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?$/.test(key)) {
    throw badRequest(`unable to parse requirement: invalid label key "${key}"`);
  }
  return key;
}

function matches(req: Requirement, value: string | undefined): boolean {
  switch (req.op) {
    case "=":
      return value === req.values[0];
    case "!=":
      return value !== req.values[0];
    case "in":
      return value !== undefined && req.values.includes(value);
    case "notin":
      return value === undefined || !req.values.includes(value);
    case "exists":
      return value !== undefined;
    case "!exists":
      return value === undefined;
  }
}

function fieldValue(object: Record<string, unknown>, path: string): string {
  if (path === "source") path = "source.component";
  let node: unknown = object;
  for (const part of path.split("."))
    node = node && typeof node === "object" ? (node as Record<string, unknown>)[part] : undefined;
  if (node === undefined || node === null) return path === "spec.unschedulable" ? "false" : "";
  return String(node);
}
