import { isMap, isScalar, isSeq, LineCounter, type Node as YamlNode, parseDocument } from "yaml";
import type { ConfigProblem } from "./errors.ts";

/** A problem found while reading YAML: no file name yet, the line where it is. */
export type YamlProblem = Omit<ConfigProblem, "file">;

/**
 * The YAML read: the mapping (with syntax errors, what could still be read, so the rest of the file is checked;
 * absent when nothing could), the line of every dotted key, and the problems.
 */
export interface ReadYaml {
  readonly data?: Record<string, unknown>;
  readonly problems: readonly YamlProblem[];
  /** 1-based line of a dotted key (`alert.slack.webhook`, `silences.0`), when the file has it. */
  lineOf(key: string): number | undefined;
}

/**
 * Reads configuration text (spec 2.1) with line numbers. Every syntax error and every YAML warning is an
 * error with its line (an unresolved tag such as an unquoted `!kube-system` would otherwise read as an empty
 * string and quietly change what mon delivers); duplicate keys are errors; aliases are resolved with a bound.
 * Empty text is an empty mapping. Never throws.
 */
export function readYaml(text: string): ReadYaml {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const keyLines = new Map<string, number>();
  const lineOf = (key: string) => keyLines.get(key);
  const problems: YamlProblem[] = [];
  const fail = (message: string, line: number, rule: ConfigProblem["rule"] = "yaml_syntax"): ReadYaml => {
    problems.push({ level: "error", rule, key: "", message, line });
    return { problems, lineOf };
  };
  for (const error of doc.errors) {
    problems.push({
      level: "error",
      rule: "yaml_syntax",
      key: "",
      message: error.message.split("\n")[0] ?? "invalid YAML",
      line: error.linePos?.[0]?.line ?? lines.linePos(error.pos[0]).line,
    });
  }
  for (const warning of doc.warnings) {
    const first = warning.message.split("\n")[0] ?? "YAML warning";
    const hint =
      warning.code === "TAG_RESOLVE_FAILED" && /!\S/.test(first)
        ? ' (quote entries that start with !, as in "!kube-system")'
        : "";
    problems.push({
      level: "error",
      rule: "yaml_syntax",
      key: "",
      message: `${first}${hint}`,
      line: warning.linePos?.[0]?.line ?? lines.linePos(warning.pos[0]).line,
    });
  }
  // With a syntax error the parser still recovers what it can: the rest of the file is checked too, so one
  // error does not hide the others (checkConfig then never accepts the file).
  const broken = problems.length > 0;
  collectLines(doc.contents as YamlNode | null, "", keyLines, lines);
  let raw: unknown;
  try {
    // Resolves aliases; an unresolved alias or an alias bomb (yaml's maxAliasCount) throws here.
    raw = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (error) {
    if (broken) return { problems, lineOf };
    return fail((error as Error).message.split("\n")[0] ?? "invalid YAML", 1);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    if (broken) return { problems, lineOf };
    return fail("the configuration must be a YAML mapping of keys to values", 1, "invalid_value");
  }
  return { data: raw as Record<string, unknown>, problems, lineOf };
}

/** The line of `key`, or of the nearest enclosing key the file has. */
export function nearestLine(key: string, lineOf: (key: string) => number | undefined): number | undefined {
  const parts = key.split(".");
  for (let n = parts.length; n > 0; n--) {
    const line = lineOf(parts.slice(0, n).join("."));
    if (line) return line;
  }
  return undefined;
}

// --- internal ---

function collectLines(node: YamlNode | null, prefix: string, out: Map<string, number>, lines: LineCounter): void {
  if (!node) return;
  if (isMap(node)) {
    for (const pair of node.items) {
      const keyNode = pair.key as YamlNode | null;
      const name = isScalar(keyNode) ? String(keyNode.value) : "";
      const path = prefix ? `${prefix}.${name}` : name;
      const offset = keyNode?.range?.[0];
      if (offset !== undefined) out.set(path, lines.linePos(offset).line);
      collectLines(pair.value as YamlNode | null, path, out, lines);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      const offset = (item as YamlNode | null)?.range?.[0];
      if (offset !== undefined) out.set(`${prefix}.${i}`, lines.linePos(offset).line);
      collectLines(item as YamlNode, `${prefix}.${i}`, out, lines);
    });
  }
}
