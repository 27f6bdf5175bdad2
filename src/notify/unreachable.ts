import type { Finding } from "../model/finding.ts";
import type { Message } from "../model/message.ts";
import { duration } from "./duration.ts";
import { messageFindings, STATUS_EMOJI } from "./render.ts";

/** One outage of the API server as the replica that led last tells it (app/replica/outage.ts). */
export interface UnreachableThread {
  /** The state lock's term the teller led in: one thread per outage, never per replica. */
  readonly term: number;
  /** The APIServerUnreachable finding (detect/control-plane.ts apiUnreachable). */
  readonly finding: Finding;
  /** Its reason's next steps (detect/next-steps.ts), on the announce. */
  readonly nextSteps: readonly string[];
  /** Epoch ms the server answered again (the resolve), absent while it does not. */
  readonly to?: number;
  /** The teller stopped while the server did not answer (SIGTERM): the thread is closed saying so. */
  readonly stopped?: boolean;
}

/**
 * The two messages of an API server outage (issue 53; docs/leadership.md): the announce (🔴, paging, with the
 * finding and its next steps) once the server has not answered for a minute, and the resolve in the same thread
 * (`api-unreachable@<term>`, dedup key by cluster and term) when it answers again — naming the window in which
 * nothing was seen — or when the teller stops first. Pure: `now` is epoch ms.
 */
export function renderUnreachable(cluster: string, thread: UnreachableThread, now: number): Message {
  const name = cluster || "cluster";
  const f = thread.finding;
  const clock = (t: number) => new Date(t).toISOString().slice(11, 19);
  const resolving = thread.to !== undefined || thread.stopped === true;
  const end = thread.to ?? now;
  const sentence = thread.stopped
    ? `Resolved: mon stopped on ${name} while the API server did not answer (since ${clock(f.since)} UTC, ${duration(now - f.since)}); a restarted mon announces itself and watches afresh.`
    : resolving
      ? `Resolved: the API server of ${name} answers again: unreachable from ${clock(f.since)} to ${clock(end)} UTC (${duration(end - f.since)}). Failures that began and ended in that window were not seen; those still failing are told now.`
      : `the API server of ${name} is unreachable since ${clock(f.since)} UTC (${duration(now - f.since)}): ${why(f)}. mon sees nothing of the cluster meanwhile and no replica of it can lead; what changed is told once the server answers.`;
  const mark = resolving ? "resolved" : "page";
  const steps = resolving ? [] : thread.nextSteps;
  const lines = (step: (s: string) => string) =>
    [`${STATUS_EMOJI[mark]} ${sentence}`, ...(steps.length ? ["Next steps:", ...steps.map(step)] : [])].join("\n");
  const title = resolving
    ? `Resolved: API server of ${name}`
    : `API server of ${name} unreachable since ${clock(f.since)} UTC`;
  const incidentId = `api-unreachable@${thread.term}`;
  return {
    id: `${incidentId}#${resolving ? 2 : 1}`,
    incidentId,
    action: resolving ? "resolve" : "announce",
    mark,
    emoji: STATUS_EMOJI[mark],
    tier: "critical",
    mode: "page",
    title,
    text: lines((s) => `  ${s}`),
    markdown: lines((s) => (s.startsWith("kubectl ") ? `  \`${s}\`` : `  ${s}`)),
    root: f.object,
    reason: f.reason,
    findings: messageFindings([f], (s) => s),
    news: [],
    ...(steps.length ? { nextSteps: steps } : {}),
    dedupKey: `mon-${name}-api-unreachable-${thread.term}`,
    at: now,
  };
}

/** Why, in a few words: the failing checks the server's /readyz names, else the last error. */
function why(f: Finding): string {
  const value = (label: string) => f.evidence.find((e) => e.label === label)?.value;
  const failing = value("failing checks");
  return failing
    ? `it answers but does not serve, its /readyz reports ${failing} failing`
    : (value("last error") ?? f.summary);
}
