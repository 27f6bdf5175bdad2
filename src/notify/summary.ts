import type { Decision } from "../model/decision.ts";
import type { Message, MessageFinding } from "../model/message.ts";
import { refLabel } from "../model/object-ref.ts";
import { louder, type StatusMark, type Tier } from "../model/severity.ts";
import { annotateIps } from "./ip-owners.ts";
import { redact } from "./redact.ts";
import { STATUS_EMOJI, describe } from "./render.ts";

/** Most incidents listed by name in one startup summary; the rest are counted. */
export const MAX_SUMMARY_INCIDENTS = 20;

/**
 * Renders the startup summary (spec 1.7, 6): one message listing every problem already present when mon
 * started, page-tier included, loudest first. Its status emoji is the loudest of the incidents it lists (red
 * only when one of them pages); `covers` names the incidents so their later updates and resolves follow it.
 * `decisions` are the baseline pass's announcements (at least one). Pure. Returns the count of redacted values.
 */
export function renderStartupSummary(decisions: readonly Decision[], cluster: string, ipOwner?: (ip: string) => string | undefined): { message: Message; redacted: number } {
  if (decisions.length === 0) throw new Error("a startup summary needs at least one incident");
  let count = 0;
  const clean = (text: string) => {
    const r = redact(text);
    count += r.count;
    return annotateIps(r.text, ipOwner);
  };
  const order = (d: Decision) => (d.incident.mode === "page" ? 0 : 1);
  const sorted = [...decisions].sort((a, b) => order(a) - order(b) || a.incident.id.localeCompare(b.incident.id));
  const pages = sorted.some((d) => d.incident.mode === "page");
  const mark: StatusMark = pages ? "page" : "notify";
  const tier = sorted.map((d) => d.incident.tier).reduce<Tier>((a, b) => louder(a, b), "normal");
  const emoji = STATUS_EMOJI[mark];
  const n = sorted.length;
  const title = `Startup summary: ${n} problem${n === 1 ? "" : "s"} already open`;
  const where = cluster ? ` [${cluster}]` : "";
  const note = "These were failing when mon started; each is updated and resolved from here, new problems are announced on their own.";
  const lines = sorted.slice(0, MAX_SUMMARY_INCIDENTS).map((d) => {
    const i = d.incident;
    return `• ${refLabel(i.root)}: ${clean(describe(i))} (${i.tier}${i.mode === "page" ? ", pages" : ""})`;
  });
  if (n > MAX_SUMMARY_INCIDENTS) lines.push(`… and ${n - MAX_SUMMARY_INCIDENTS} more`);
  const findings: MessageFinding[] = sorted.flatMap((d) =>
    d.incident.findings.map((f) => ({
      reason: f.reason,
      object: f.object,
      ...(f.container ? { container: f.container } : {}),
      tier: f.tier,
      summary: clean(f.summary),
      evidence: f.evidence.map((e) => ({ label: e.label, value: clean(e.value) })),
    })),
  );
  const at = sorted[0]!.at;
  const message: Message = {
    id: `startup-summary#${at}`,
    incidentId: `startup-summary@${at}`,
    action: "announce",
    mark,
    emoji,
    tier,
    mode: pages ? "page" : "notify",
    title,
    text: [`${emoji} ${title}${where}`, note, ...lines].join("\n"),
    markdown: [`${emoji} **${title}**${where}`, `_${note}_`, ...lines].join("\n"),
    root: { kind: "Cluster", name: cluster || "cluster" },
    reason: "StartupSummary",
    findings,
    news: [],
    dedupKey: `mon-${cluster || "cluster"}-startup-summary`,
    at,
    delivery: "startup summary",
    covers: sorted.map((d) => d.incident.id),
  };
  return { message, redacted: count };
}
