import type { Finding } from "../model/finding.ts";
import type { IncidentDraft } from "../model/incident.ts";
import { refKey } from "../model/object-ref.ts";
import { joining, mergeDrafts, replaceGroups } from "./merge.ts";

/** The root reason of an incident rooted at one error line several workloads fail with (spec 1.3). */
export const SHARED_ERROR = "SharedError";

/** Shortest normalized line that can tie workloads together: shorter ones (`Error`, `exit 1`) say nothing shared. */
const MIN_LINE_CHARS = 16;

/** Longest normalized line kept, in characters: the root's name. */
const MAX_LINE_CHARS = 160;

/** Evidence labels holding text the container wrote. */
const WRITTEN = new Set(["last output", "log"]);

/**
 * One error line in a form that is equal across pods and restarts (spec 1.3): lower case, with timestamps,
 * UUIDs, hex ids, IPv4 addresses and numbers replaced by `#`, pod-name suffixes dropped, spaces collapsed.
 * Returns undefined for lines too short to tie workloads together. Pure.
 */
export function normalizeErrorLine(line: string): string | undefined {
  const normalized = line
    .toLowerCase()
    .replace(/\b([a-z][a-z0-9-]*)-[a-z0-9]{8,10}-[a-z0-9]{5}\b/g, "$1")
    .replace(/\d{4}-\d\d-\d\d[t ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:z|[+-]\d\d:?\d\d)?/g, "#")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, "#")
    .replace(/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b/g, "#")
    .replace(/\b(?:0x)?[0-9a-f]*\d[0-9a-f]*\b/g, (m) =>
      m.length >= 6 || /^\d+$/.test(m) || m.startsWith("0x") ? "#" : m,
    )
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, MAX_LINE_CHARS);
  return normalized.replace(/[#\W]/g, "").length >= MIN_LINE_CHARS ? normalized : undefined;
}

/** The normalized error lines a finding's container wrote (last output, log tail). */
function errorLines(finding: Finding): Set<string> {
  const lines = new Set<string>();
  for (const e of finding.evidence) {
    if (!WRITTEN.has(e.label)) continue;
    for (const line of e.value.split(/ ⏎ |\n/)) {
      const n = normalizeErrorLine(line);
      if (n) lines.add(n);
    }
  }
  return lines;
}

/**
 * Folds workload incidents that fail with the same error line into one incident rooted at that line (spec
 * 1.3): when two or more drafts rooted at workloads or pods share a normalized line, they become one draft
 * with root `{kind: "Error", name: <normalized line>}`, reason `SharedError`, the workloads in `affected` and
 * `folded` (cascading suppression). The line shared by the most drafts is taken first; a draft joins one
 * group. Node, endpoint, namespace and configuration roots keep theirs: they are deeper causes. A workload
 * whose incident is already open (`isOpen`) keeps it (`joining`).
 * Pure; keeps the input order, the merged draft where its first member was.
 */
export function foldSharedErrors(
  drafts: readonly IncidentDraft[],
  isOpen: (id: string) => boolean = () => false,
): IncidentDraft[] {
  const linesOf = new Map<IncidentDraft, Set<string>>();
  const sharing = new Map<string, IncidentDraft[]>();
  for (const d of drafts) {
    if (DEEPER_ROOTS.has(d.root.kind) || d.findings.some((f) => f.explains)) continue;
    const lines = new Set(d.findings.flatMap((f) => [...errorLines(f)]));
    if (lines.size === 0) continue;
    linesOf.set(d, lines);
    for (const line of lines) sharing.set(line, [...(sharing.get(line) ?? []), d]);
  }
  const grouped = new Map<IncidentDraft, string>();
  const candidates = [...sharing.entries()]
    .filter(([, ds]) => ds.length >= 2)
    .sort(([la, a], [lb, b]) => b.length - a.length || la.localeCompare(lb));
  for (const [line, members] of candidates) {
    for (const d of joining(
      members.filter((m) => !grouped.has(m)),
      refKey({ kind: "Error", name: line }),
      isOpen,
    ))
      grouped.set(d, line);
  }
  return replaceGroups(drafts, grouped, (line, members) =>
    mergeDrafts({ kind: "Error", name: line }, SHARED_ERROR, members, "cascading_suppression"),
  );
}

/** Roots that already name a cause deeper than one workload's own failure. */
const DEEPER_ROOTS: ReadonlySet<string> = new Set([
  "Node",
  "Endpoint",
  "Namespace",
  "Error",
  "Secret",
  "ConfigMap",
  "ServiceAccount",
]);
