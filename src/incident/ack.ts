import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { Ack } from "../model/incident.ts";
import { refKey, type ObjectRef } from "../model/object-ref.ts";

/** The acknowledgement annotation (spec 2.7, Pro). */
export const ACK_ANNOTATION = "mon.io/ack";

/** Longest acknowledgement note quoted, in UTF-8 bytes (spec 3.1). */
export const ACK_NOTE_MAX_BYTES = 200;

/**
 * Finds `mon.io/ack` on an incident's root or on any object it explains (spec 3.1), the root first. The note
 * is passed through `clean` (credential redaction) first, then made one line and cut to 200 bytes at a
 * character boundary, so a cut never leaves part of a secret. Pure.
 */
export function ackOf(
  root: ObjectRef,
  findings: readonly Finding[],
  inventory: InventoryView,
  clean: (text: string) => string,
): Ack | undefined {
  for (const ref of [root, ...findings.map((f) => f.object)]) {
    const raw = inventory.get(ref.kind, ref.namespace, ref.name)?.metadata?.annotations?.[ACK_ANNOTATION];
    if (typeof raw === "string") return { on: ref, note: oneLine(clean(raw)) };
  }
  return undefined;
}

/** What an ack step says and keeps: `ack` once acknowledged; `ackAtOpen` marks an annotation present at announcement. */
export interface AckState {
  readonly ack?: Ack;
  readonly ackAtOpen?: string;
}

/**
 * One acknowledgement step of an announced incident (spec 3.1): an annotation added (or changed) after the
 * announcement acknowledges it ('Acknowledged on <kind>/<name>' with the note); removing it posts
 * 'Acknowledgement removed'; one already present when the incident was announced does not count until it
 * changes or is added again. Returns the news lines and the state to keep. Pure.
 */
export function stepAck(previous: AckState, present: Ack | undefined): { news: string[]; state: AckState } {
  if (previous.ack) {
    if (!present) return { news: ["Acknowledgement removed"], state: {} };
    if (ackKey(present) !== ackKey(previous.ack)) return { news: [acknowledged(present)], state: { ack: present } };
    return { news: [], state: { ack: previous.ack } };
  }
  if (present && ackKey(present) !== previous.ackAtOpen)
    return { news: [acknowledged(present)], state: { ack: present } };
  return { news: [], state: present && previous.ackAtOpen ? { ackAtOpen: previous.ackAtOpen } : {} };
}

/** The announcement's line for an annotation already present on a new incident (spec 3.1: not pre-acknowledged). */
export function ackPresentAtOpen(ack: Ack): { news: string; state: AckState } {
  return {
    news: `${ACK_ANNOTATION} is present on ${ack.on.kind}/${ack.on.name}${ack.note ? ` ("${ack.note}")` : ""}; this new incident is not acknowledged by it until it is changed or added again`,
    state: { ackAtOpen: ackKey(ack) },
  };
}

// --- internal ---

function ackKey(ack: Ack): string {
  return `${refKey(ack.on)}\u0000${ack.note}`;
}

function acknowledged(ack: Ack): string {
  return `Acknowledged on ${ack.on.kind}/${ack.on.name}${ack.note ? `: "${ack.note}"` : ""}`;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  const bytes = new TextEncoder().encode(line);
  if (bytes.length <= ACK_NOTE_MAX_BYTES) return line;
  let cut = "";
  let size = 0;
  for (const ch of line) {
    const n = new TextEncoder().encode(ch).length;
    if (size + n > ACK_NOTE_MAX_BYTES - 3) break;
    cut += ch;
    size += n;
  }
  // Never a partial word at the cut: it could be the start of a credential no rule knows (spec 6.8).
  return `${cut.replace(/[^\s,;:=&"'()<>{}\]|]+$/, "").trimEnd()}…`;
}
