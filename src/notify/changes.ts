import type { ChangeReport } from "../model/change.ts";
import type { MessageChange } from "../model/message.ts";
import { refLabel } from "../model/object-ref.ts";
import { duration } from "./duration.ts";

/** A change this close to the onset is told as 'right before it began', ms. */
const JUST_BEFORE_MS = 5_000;

/**
 * The "Changed:" line of an announcement or update (issue 32): the last change before the failure began — who
 * (the managedFields manager), how long before, on what, and the difference — or that nothing changed in the
 * window looked at. `clean` redacts what the cluster wrote (an image reference can carry credentials).
 */
export function changeLine(report: ChangeReport, clean: (text: string) => string): string {
  const c = report.change;
  if (!c) return `Changed: nothing in the ${duration(report.windowMs)} before it began.`;
  const gap = report.onsetAt - c.at;
  // Within seconds of the onset: a rollout's new pods fail as they start.
  const before =
    Math.abs(gap) < JUST_BEFORE_MS
      ? "right before it began"
      : gap > 0
        ? `${duration(gap)} before it began`
        : `${duration(-gap)} after it began`;
  const who = c.manager ? clean(c.manager) : "";
  const what = c.what.length ? `: ${c.what.map(clean).join("; ")}` : "";
  const object = refLabel(c.object);
  switch (c.kind) {
    case "rollout":
      return `Changed: ${before}, ${who || "a write"} rolled out ${object}${what}.`;
    case "spec":
      return `Changed: ${before}, ${who || "a write"} changed ${object}${what}.`;
    case "created":
      return `Changed: ${object} was created ${before}${who ? ` by ${who}` : ""}.`;
    case "deleted":
      return `Changed: ${object} was deleted ${before}.`;
    case "restarted":
      return `Changed: ${object} restarted ${before}.`;
  }
}

/** The change as the message carries it (webhook `changes[]`): none in the window is an empty list. */
export function messageChanges(report: ChangeReport, clean: (text: string) => string): MessageChange[] {
  const c = report.change;
  if (!c) return [];
  return [
    {
      kind: c.kind,
      object: c.object,
      ...(c.manager ? { manager: clean(c.manager) } : {}),
      at: c.at,
      what: c.what.map(clean),
    },
  ];
}
