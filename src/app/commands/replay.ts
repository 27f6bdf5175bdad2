import type { LoadedConfig } from "../../config/load.ts";
import { DIGEST_INTERVAL_SECONDS } from "../../incident/lifecycle.ts";
import { Inventory } from "../../kube/inventory.ts";
import { KNOWN_KINDS } from "../../kube/kinds.ts";
import { trimManagedFields } from "../../kube/trim.ts";
import type { Edition } from "../../model/edition.ts";
import type { KubeObject } from "../../model/inventory.ts";
import { createRouter } from "../../route/router.ts";
import { createFakeClock } from "../../runtime/clock.ts";
import { createSilentLogger } from "../../runtime/logger.ts";
import type { Timeline } from "../../sim/timeline.ts";
import { Traces } from "../delivery/traces.ts";
import { TellHistory } from "../../page/history.ts";
import { renderIncidentsPage } from "../../page/html.ts";
import { prepareStartup } from "../delivery/prepare.ts";
import { createPassLoop } from "../pass/loop.ts";
import { rulesFor, silenceSources } from "../pass/rules.ts";

/**
 * How long past a timeline's last event a replay runs, s: holds, recoveries and the low-priority digest play
 * out — a tier-normal problem is told only in the digest, up to DIGEST_INTERVAL_SECONDS after it opened.
 */
export const REPLAY_AFTER_SECONDS = DIGEST_INTERVAL_SECONDS + 120;

/** One message a provider would have received: `t` seconds after the timeline's start. */
export interface TranscriptLine {
  readonly t: number;
  readonly provider: string;
  readonly action: string;
  readonly incidentId: string;
  readonly title: string;
  /** The whole message as the provider would have received it (plain text). */
  readonly text: string;
  /** For a digest, roll-up or summary: the incidents it names. */
  readonly covers?: readonly string[];
}

/** What one configuration would have told over a timeline, and why (the traces of `mon explain`). */
export interface Replayed {
  readonly lines: readonly TranscriptLine[];
  readonly traces: Traces;
  /** The incidents as their messages told them, for the incidents page (`mon replay --html`, issue 44). */
  readonly history: TellHistory;
  /**
   * Epoch ms on the replay's clock of the last thing that happened — the recording's last event or the last
   * message told, whichever is later: the page's "now" (issue 54: not the end of the time the replay runs on
   * after it, REPLAY_AFTER_SECONDS, which made every incident read half an hour old).
   */
  readonly endMs: number;
}

/**
 * Replays a recorded timeline (`mon record`, or the recordings the repository carries) through the real
 * engine on a fake clock (issue 32 `mon replay`): the Inventory fed with the initial objects and each watch
 * event at its time, the real pass loop (250 ms batches, wake-ups for holds, reminders and the digest), the
 * rules of `loaded` in `edition`, and its router — so every message lands with the providers it would have gone
 * to. Nothing is sent: providers are built (credentials are read) but never called; container logs are not
 * read. Resolves once REPLAY_AFTER_SECONDS after the last event have passed. `inventory` is a fresh one by default
 * (a test passes one that keeps whole objects, to compare with the projection).
 */
export async function replay(
  timeline: Timeline,
  loaded: LoadedConfig,
  edition: Edition,
  inventory = new Inventory(),
): Promise<Replayed> {
  const config = loaded.config;
  const clock = createFakeClock(timeline.startMs);
  // The Inventory's door admits each object (kube/admit.ts): a recording's odd object is set aside there.
  const apply = (type: "ADDED" | "MODIFIED" | "DELETED", raw: KubeObject) => {
    if (typeof raw?.kind === "string") inventory.apply(raw.kind, type, trimManagedFields(structuredClone(raw)));
  };
  for (const o of timeline.initial) apply("ADDED", o);
  // Secrets count as watched only when the recording holds them: else every Secret would look missing.
  for (const k of KNOWN_KINDS)
    if (!k.sensitive || (config.watch.secrets && timeline.secretsRecorded)) inventory.markWatched(k.kind);
  const prepared = prepareStartup(loaded, { logger: createSilentLogger(), clock, stdout: () => {} });
  const router = createRouter({
    providers: prepared.providers.map((p) => ({ name: p.definition.name, kind: p.definition.kind, ...p.common })),
    ...(config.app.communityProvider ? { communityProvider: config.app.communityProvider } : {}),
    edition,
  });
  const rules = rulesFor(config, edition, router.inactive, silenceSources(loaded));
  const lines: TranscriptLine[] = [];
  const traces = new Traces();
  const history = new TellHistory();
  let lastToldMs = timeline.startMs;
  const loop = createPassLoop({
    clock,
    inventory,
    cluster: config.app.clusterName,
    rules,
    evidence: { attach: (f) => f, pending: () => false, request: () => {}, busy: () => false },
    ready: () => true,
    usage: () => ({}),
    onResult(result, now) {
      if (result.traces) traces.pass(result.traces, now);
      if (result.messages.length) lastToldMs = now;
      for (const { message, openedResolved } of result.messages) {
        const jobs = router.route(message, now, openedResolved);
        history.sent(message, jobs, now);
        for (const job of jobs)
          lines.push({
            t: Math.round((now - timeline.startMs) / 100) / 10,
            provider: job.provider,
            action: job.message.action,
            incidentId: job.message.incidentId,
            title: job.message.title,
            text: job.message.text,
            ...(job.message.covers?.length ? { covers: job.message.covers } : {}),
          });
      }
    },
    onLag: () => {},
    nextWakeAt: () => undefined,
    explain: true,
  });
  loop.passNow();
  for (const e of timeline.events) {
    const at = timeline.startMs + e.t * 1000;
    if (at > clock.now()) await clock.advance(at - clock.now());
    apply(e.type, e.object);
    loop.schedule();
  }
  const lastEventMs = clock.now();
  await clock.advance(REPLAY_AFTER_SECONDS * 1000);
  loop.stop();
  for (const p of prepared.providers) p.provider.close?.();
  return { lines, traces, history, endMs: Math.max(lastEventMs, lastToldMs) };
}

/**
 * The difference two configurations make over one timeline, in sentences: what the first tells that the
 * second does not — and why, from the second's trace (which silence rule, scope, maintenance) — and the
 * reverse, then how many messages each provider gets under each. A digest, roll-up or summary counts for each
 * incident it names ("in the digest"), so a problem silenced out of a digest is a difference too.
 */
export function replayDifference(a: { name: string; run: Replayed }, b: { name: string; run: Replayed }): string[] {
  interface Told {
    readonly provider: string;
    readonly action: string;
    readonly incidentId: string;
    readonly via?: string;
  }
  const told = (lines: readonly TranscriptLine[]): Map<string, { told: Told; n: number }> => {
    const out = new Map<string, { told: Told; n: number }>();
    for (const l of lines) {
      const via = l.covers?.length && l.incidentId.includes("@") ? l.incidentId.split("@")[0] : undefined;
      for (const incidentId of via ? l.covers! : [l.incidentId]) {
        const t: Told = { provider: l.provider, action: l.action, incidentId, ...(via ? { via } : {}) };
        const key = `${t.provider} ${t.action} ${t.incidentId} ${via ?? ""}`;
        const seen = out.get(key);
        if (seen) seen.n++;
        else out.set(key, { told: t, n: 1 });
      }
    }
    return out;
  };
  const inA = told(a.run.lines);
  const inB = told(b.run.lines);
  const out: string[] = [];
  const why = (run: Replayed, incidentId: string) => {
    const root = incidentId.includes("@") ? undefined : incidentId;
    const traced = root ? Object.values(run.traces.ofIncident(root)).flat() : [];
    const suppressed =
      traced.find((e) => e.step === "suppressed") ??
      (root ? run.traces.of(root).find((e) => e.step === "suppressed") : undefined);
    return suppressed ? ` (${suppressed.text})` : "";
  };
  const say = (sign: string, t: Told, n: number, with_: string, without: string, run: Replayed) =>
    `${sign} ${t.provider}: ${t.action} ${t.incidentId}${t.via ? ` in the ${t.via}` : ""}${n > 1 ? ` ×${n}` : ""} is told with ${with_}, not with ${without}${why(run, t.incidentId)}`;
  for (const [k, { told: t, n }] of inA) {
    const missing = n - (inB.get(k)?.n ?? 0);
    if (missing > 0) out.push(say("-", t, missing, a.name, b.name, b.run));
  }
  for (const [k, { told: t, n }] of inB) {
    const extra = n - (inA.get(k)?.n ?? 0);
    if (extra > 0) out.push(say("+", t, extra, b.name, a.name, a.run));
  }
  const providers = new Set([...a.run.lines, ...b.run.lines].map((l) => l.provider));
  for (const p of [...providers].sort()) {
    const x = a.run.lines.filter((l) => l.provider === p).length;
    const y = b.run.lines.filter((l) => l.provider === p).length;
    if (x !== y) out.push(`${p}: ${x} message${x === 1 ? "" : "s"} with ${a.name}, ${y} with ${b.name}`);
  }
  return out.length ? out : [`${a.name} and ${b.name} tell the same messages to the same providers`];
}

/**
 * The incidents page of a replay (issue 44, `mon replay --html`): one self-contained HTML file — the list, the
 * timeline fitted to the replay's incidents and every incident's page with its explain trace — at the replay's end.
 */
export function replayPage(timeline: Timeline, config: string, run: Replayed): string {
  return renderIncidentsPage({
    cluster: timeline.name,
    now: run.endMs,
    stories: run.history.list(run.endMs),
    blind: run.history.blindPeriods(),
    source: `mon replay of ${timeline.name} with ${config}`,
    inline: { traces: (id) => run.traces.ofIncident(id) },
  });
}
