import type { Told } from "../replay.ts";

/** One message of a thread as the property compares it: `announce CrashLoopBackOff`, with when and its text. */
export interface ThreadMessage {
  readonly t: number;
  readonly action: string;
  readonly reason: string;
  readonly text: string;
}

/**
 * What each provider thread received, by incident id: the conversation "up to times" (issue 28). Whether two
 * announcements shared a pass is timing, so a roll-up's announcement counts as an announcement in each thread it
 * covers (with the reason that thread's own next message carries) and its closing message is dropped; a
 * startup summary counts the same way. Messages that belong to no incident (notices, digests) are left out, and so
 * is a restored-incident summary: it names threads that go on, after a restart or a takeover, and opens none.
 */
export function threadsOf(told: readonly Told[]): Map<string, ThreadMessage[]> {
  const threads = new Map<string, ThreadMessage[]>();
  const add = (id: string, m: ThreadMessage) => threads.set(id, [...(threads.get(id) ?? []), m]);
  told.forEach((m, i) => {
    if (m.delivery === "roll-up" || m.delivery === "startup summary") {
      if (m.action !== "announce") return;
      for (const id of m.covers ?? []) {
        const next = told.slice(i + 1).find((later) => later.incidentId === id);
        // The reason the thread's own next message carries; with none (it is still open), the one the summary
        // names for it.
        add(id, { t: m.t, action: "announce", reason: next?.reason ?? m.coverReasons?.[id] ?? "?", text: m.text });
      }
      return;
    }
    if (m.delivery === "notice" || m.delivery === "digest" || m.delivery === "restored summary" || !m.incidentId)
      return;
    add(m.incidentId, { t: m.t, action: m.action, reason: m.reason, text: m.text });
  });
  return threads;
}

/** Threads as comparable lines: `Deployment/shop/api: announce CrashLoopBackOff, resolve CrashLoopBackOff`. */
export function conversationLines(threads: ReadonlyMap<string, readonly ThreadMessage[]>): string[] {
  return [...threads.entries()]
    .map(([id, ms]) => `${id}: ${ms.map((m) => `${m.action} ${m.reason}`).join(", ")}`)
    .sort();
}
