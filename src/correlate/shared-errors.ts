import type { Finding } from "../model/finding.ts";
import type { IncidentDraft } from "../model/incident.ts";
import { refKey } from "../model/object-ref.ts";
import { joining, mergeDrafts, replaceGroups } from "./merge.ts";

/** The root reason of an incident rooted at one error line several workloads fail with (spec 1.3). */
export const SHARED_ERROR = "SharedError";

/**
 * Fewest letters of specific words a normalized line needs to tie workloads together: a line made of words
 * every crash says (`Error: the process exited with status 1`) says nothing shared.
 */
const MIN_LINE_CHARS = 16;

/** Words every crash says, whatever failed: they do not make a line specific. */
const GENERIC_WORDS = new Set(
  (
    "a an and are as at be been by call caused code command container containers core died dumped err error errors " +
    "exception exit exited exiting fail failed failing failure fatal for from goroutine has have in info is it " +
    "killed last main most non nonzero not of on or panic panicked process recent returned running signal stack " +
    "status terminated the this thread to trace traceback uncaught unhandled unknown was warn warning while with zero"
  ).split(" "),
);

/** Lines most crashes share, whatever their cause: never a shared root (stack headers, common crash signatures). */
const COMMON_LINES: readonly RegExp[] = [
  /^traceback \(most recent call last\)/,
  /^goroutine # \[/,
  /^exception in thread /,
  /^at [\w.$<>]+ ?\(/,
  /^(caused by|during handling of the above exception)/,
  /nil pointer dereference/,
  /segmentation (fault|violation)|sigsegv/,
  /nullpointerexception/,
  /out ?of ?memory/,
  /stack ?overflow/,
  /(unhandled|uncaught) (promise )?(rejection|exception)/,
  /keyboardinterrupt|sigterm|sigkill/,
];

/** Longest normalized line kept, in characters: the root's name. */
const MAX_LINE_CHARS = 160;

/** Evidence labels holding text the container wrote. */
const WRITTEN = new Set(["last output", "log"]);

/**
 * One error line in a form that is equal across pods and restarts (spec 1.3): lower case, with timestamps,
 * UUIDs, hex ids, IPv4 addresses and numbers replaced by `#`, pod-name suffixes dropped, spaces collapsed.
 * Returns undefined for lines that cannot tie workloads together: a line most crashes share (a stack-trace
 * header, a nil pointer, an out-of-memory), or one with fewer than MIN_LINE_CHARS letters of words that are not
 * generic (`Error: the process exited with status 1`). Pure.
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
  if (COMMON_LINES.some((re) => re.test(normalized))) return undefined;
  const specific = (normalized.match(/[a-z]+/g) ?? []).filter((word) => !GENERIC_WORDS.has(word)).join("");
  return specific.length >= MIN_LINE_CHARS ? normalized : undefined;
}

/** The error lines a finding's container wrote (last output, log tail): normalized, with one line as written. */
export function errorLines(finding: Finding): Map<string, string> {
  const lines = new Map<string, string>();
  for (const e of finding.evidence) {
    if (!WRITTEN.has(e.label)) continue;
    for (const line of e.value.split(/ ⏎ |\n/)) {
      const n = normalizeErrorLine(line);
      if (n && !lines.has(n)) lines.set(n, line.trim());
    }
  }
  return lines;
}

/** Longest line as written shown in a shared error's label, in characters. */
const MAX_LABEL_CHARS = 120;

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
  const sharing = new Map<string, IncidentDraft[]>();
  // One line as a container wrote it, for each normalized one: what its root is shown as.
  const written = new Map<string, string>();
  for (const d of drafts) {
    if (DEEPER_ROOTS.has(d.root.kind) || d.findings.some((f) => f.explains)) continue;
    const lines = new Set<string>();
    for (const f of d.findings)
      for (const [line, original] of errorLines(f)) {
        lines.add(line);
        if (!written.has(line)) written.set(line, original);
      }
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
  return replaceGroups(drafts, grouped, (line, members) => {
    const shown = written.get(line) ?? line;
    const label = `error "${shown.length > MAX_LABEL_CHARS ? `${shown.slice(0, MAX_LABEL_CHARS - 1)}…` : shown}"`;
    return mergeDrafts({ kind: "Error", name: line, label }, SHARED_ERROR, members, "cascading_suppression");
  });
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
