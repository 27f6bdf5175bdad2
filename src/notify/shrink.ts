import type { Message, MessageFinding } from "../model/message.ts";

/**
 * How far a message can be shortened to fit a receiver's size limit (issue 30, spec 6): each level keeps less,
 * and every level keeps the status emoji, the headline, the ids the message covers and what a person needs to
 * act first. Level 0 is the message as rendered.
 *   1. no evidence (every finding kept, with its summary)
 *   2. at most 20 findings, 20 news items, 60 lines and 16,000 characters of text
 *   3. at most 5 findings, 5 news items, 20 lines and 4,000 characters
 *   4. no findings (nor a summary's per-problem list); the headline and 5 lines, at most 1,000 characters
 *   5. the headline alone (at most 300 characters)
 * Up to level 4, the "Changed:" and "Impact:" lines come right after the headline, so a cut keeps them first.
 */
export const SHRINK_LEVELS = 5;

const LEVELS: readonly { findings: number; evidence: boolean; news: number; lines: number; chars: number }[] = [
  {
    findings: Number.POSITIVE_INFINITY,
    evidence: true,
    news: Number.POSITIVE_INFINITY,
    lines: Infinity,
    chars: Infinity,
  },
  {
    findings: Number.POSITIVE_INFINITY,
    evidence: false,
    news: Number.POSITIVE_INFINITY,
    lines: Number.POSITIVE_INFINITY,
    chars: Number.POSITIVE_INFINITY,
  },
  { findings: 20, evidence: false, news: 20, lines: 60, chars: 16_000 },
  { findings: 5, evidence: false, news: 5, lines: 20, chars: 4_000 },
  { findings: 0, evidence: false, news: 0, lines: 6, chars: 1_000 },
  { findings: 0, evidence: false, news: 0, lines: 1, chars: 300 },
];

/**
 * `message` shortened to `level` (1 to SHRINK_LEVELS): fewer findings (the rest counted, "… and 12 more
 * findings"), no evidence, fewer lines, a note saying it was shortened. Undefined for a level past the last.
 * Pure.
 */
export function shrinkMessage(message: Message, level: number): Message | undefined {
  const l = LEVELS[level];
  if (!l || level < 1) return undefined;
  const findings: MessageFinding[] = message.findings
    .slice(0, l.findings)
    .map((f) => (l.evidence ? f : { ...f, evidence: [] }));
  const left = message.findings.length - findings.length;
  const note = `(shortened to fit the receiver's size limit${left > 0 ? `; ${left} more finding${left === 1 ? "" : "s"} not shown` : ""})`;
  // Without findings, a summary's per-problem list goes too: `covers` keeps every id (routing read it before).
  const { problems: _problems, ...kept } = message;
  return {
    ...(level >= 4 ? kept : message),
    findings,
    news: message.news.slice(0, l.news),
    text: cutText(message.text, l.lines, l.chars, level === SHRINK_LEVELS ? "" : note),
    markdown: cutText(message.markdown, l.lines, l.chars, level === SHRINK_LEVELS ? "" : `_${note}_`),
    ...(message.nextSteps ? { nextSteps: message.nextSteps.slice(0, level >= 4 ? 1 : 3) } : {}),
  };
}

/**
 * A message that names several problems (a roll-up, a summary, a digest) split in two halves by the incidents it
 * covers, for a receiver whose limit even the shortest form exceeds: each part names its own incidents by id
 * (`covers`) and in its text, as `<id>~1` and `<id>~2`. Undefined when it covers fewer than two. Pure.
 */
export function splitMessage(message: Message): [Message, Message] | undefined {
  const covers = message.covers ?? [];
  if (covers.length < 2) return undefined;
  const half = Math.ceil(covers.length / 2);
  const part = (ids: readonly string[], k: 1 | 2): Message => {
    const headline = firstLine(message.text);
    const mdHeadline = firstLine(message.markdown);
    const listed = ids.map((id) => `• ${id}`);
    const tail = `(part ${k} of 2 of a message too large for the receiver: ${ids.length} of ${covers.length} problems)`;
    return {
      ...message,
      id: `${message.id}~${k}`,
      findings: [],
      news: [],
      covers: ids,
      ...(message.problems ? { problems: message.problems.filter((p) => ids.includes(p.incidentId)) } : {}),
      text: [headline, tail, ...listed].join("\n"),
      markdown: [mdHeadline, `_${tail}_`, ...listed].join("\n"),
    };
  };
  return [part(covers.slice(0, half), 1), part(covers.slice(half), 2)];
}

// --- internal ---

/** Lines a cut keeps right after the headline. */
const FIRST_KEPT = /^(Changed|Impact): /;

function firstLine(text: string): string {
  const at = text.indexOf("\n");
  return at < 0 ? text : text.slice(0, at);
}

/** The first `lines` lines of `text`, at most `chars` characters (cut at a line), then `note` (if any) when anything went. */
function cutText(text: string, lines: number, chars: number, note: string): string {
  const split = text.split("\n");
  // What changed and who is hurt are kept first after the headline (issue 32): they are what on-call asks.
  const first = split.slice(1).filter((l) => FIRST_KEPT.test(l));
  const all = [split[0] ?? "", ...first, ...split.slice(1).filter((l) => !FIRST_KEPT.test(l))];
  const kept: string[] = [];
  let size = 0;
  for (const line of all.slice(0, lines)) {
    const room = chars - size - (kept.length ? 1 : 0);
    if (room <= 0) break;
    if (line.length > room) {
      // The headline is always kept, cut if it must be; another line that does not fit ends the text.
      if (kept.length === 0) kept.push(`${line.slice(0, Math.max(1, room - 1))}…`);
      break;
    }
    kept.push(line);
    size += line.length + (kept.length > 1 ? 1 : 0);
  }
  if (kept.length === all.length && kept[0] === all[0]) return text;
  // The note never makes a message longer than it was; the last level is the headline alone, without it.
  if (note === "") return kept.join("\n");
  const noted = [...kept, note].join("\n");
  return noted.length < text.length ? noted : text;
}
