import type { LoadedConfig } from "../../config/load.ts";
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
import { prepareStartup } from "../delivery/prepare.ts";
import { createPassLoop } from "../pass/loop.ts";
import { rulesFor, silenceSources } from "../pass/rules.ts";

/** How long past a timeline's last event a replay runs, s: holds, recoveries and the digest play out. */
export const REPLAY_AFTER_SECONDS = 600;

/** One message a provider would have received: `t` seconds after the timeline's start. */
export interface TranscriptLine {
  readonly t: number;
  readonly provider: string;
  readonly action: string;
  readonly incidentId: string;
  readonly title: string;
  /** The whole message as the provider would have received it (plain text). */
  readonly text: string;
}

/** What one configuration would have told over a timeline, and why (the traces of `mon explain`). */
export interface Replayed {
  readonly lines: readonly TranscriptLine[];
  readonly traces: Traces;
}

/**
 * Replays a recorded timeline (`mon record`, or the recordings the repository carries) through the real
 * engine on a fake clock (issue 32 `mon replay`): the Inventory fed with the initial objects and each watch
 * event at its time, the real pass loop (250 ms batches, wake-ups for holds, reminders and the digest), the
 * rules of `loaded` in `edition`, and its router — so every message lands with the providers it would have gone
 * to. Nothing is sent: providers are built (credentials are read) but never called; container logs are not
 * read. Resolves once REPLAY_AFTER_SECONDS after the last event have passed.
 */
export async function replay(timeline: Timeline, loaded: LoadedConfig, edition: Edition): Promise<Replayed> {
  const config = loaded.config;
  const clock = createFakeClock(timeline.startMs);
  const inventory = new Inventory();
  // The Inventory's door admits each object (kube/admit.ts): a recording's odd object is set aside there.
  const apply = (type: "ADDED" | "MODIFIED" | "DELETED", raw: KubeObject) => {
    if (typeof raw?.kind === "string") inventory.apply(raw.kind, type, trimManagedFields(structuredClone(raw)));
  };
  for (const o of timeline.initial) apply("ADDED", o);
  for (const k of KNOWN_KINDS) if (!k.sensitive || config.watch.secrets) inventory.markWatched(k.kind);
  const prepared = prepareStartup(loaded, { logger: createSilentLogger(), clock, stdout: () => {} });
  const router = createRouter({
    providers: prepared.providers.map((p) => ({ name: p.definition.name, kind: p.definition.kind, ...p.common })),
    ...(config.app.communityProvider ? { communityProvider: config.app.communityProvider } : {}),
    edition,
  });
  const rules = rulesFor(config, edition, router.inactive, silenceSources(loaded));
  const lines: TranscriptLine[] = [];
  const traces = new Traces();
  const loop = createPassLoop({
    clock,
    inventory,
    cluster: config.app.clusterName,
    rules,
    evidence: { lines: () => undefined, pending: () => false, request: () => {}, busy: () => false },
    ready: () => true,
    usage: () => ({}),
    onResult(result, now) {
      if (result.traces) traces.pass(result.traces, now);
      for (const { message, openedResolved } of result.messages)
        for (const job of router.route(message, now, openedResolved))
          lines.push({
            t: Math.round((now - timeline.startMs) / 100) / 10,
            provider: job.provider,
            action: job.message.action,
            incidentId: job.message.incidentId,
            title: job.message.title,
            text: job.message.text,
          });
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
  await clock.advance(REPLAY_AFTER_SECONDS * 1000);
  loop.stop();
  for (const p of prepared.providers) p.provider.close?.();
  return { lines, traces };
}

/**
 * The difference two configurations make over one timeline, in sentences: what the first tells that the
 * second does not — and why, from the second's trace (which silence rule, scope, maintenance) — and the
 * reverse, then how many messages each provider gets under each.
 */
export function replayDifference(a: { name: string; run: Replayed }, b: { name: string; run: Replayed }): string[] {
  const key = (l: TranscriptLine) => `${l.provider} ${l.action} ${l.incidentId}`;
  const count = (lines: readonly TranscriptLine[]) => {
    const out = new Map<string, number>();
    for (const l of lines) out.set(key(l), (out.get(key(l)) ?? 0) + 1);
    return out;
  };
  const inA = count(a.run.lines);
  const inB = count(b.run.lines);
  const out: string[] = [];
  const why = (run: Replayed, incidentId: string) => {
    const root = incidentId.includes("@") ? undefined : incidentId;
    const traced = root ? Object.values(run.traces.ofIncident(root)).flat() : [];
    const suppressed =
      traced.find((e) => e.step === "suppressed") ??
      (root ? run.traces.of(root).find((e) => e.step === "suppressed") : undefined);
    return suppressed ? ` (${suppressed.text})` : "";
  };
  for (const [k, n] of inA) {
    const missing = n - (inB.get(k) ?? 0);
    if (missing <= 0) continue;
    const [provider, action, incidentId] = k.split(" ") as [string, string, string];
    out.push(
      `- ${provider}: ${action} ${incidentId}${missing > 1 ? ` ×${missing}` : ""} is told with ${a.name}, not with ${b.name}${why(b.run, incidentId)}`,
    );
  }
  for (const [k, n] of inB) {
    const extra = n - (inA.get(k) ?? 0);
    if (extra <= 0) continue;
    const [provider, action, incidentId] = k.split(" ") as [string, string, string];
    out.push(
      `+ ${provider}: ${action} ${incidentId}${extra > 1 ? ` ×${extra}` : ""} is told with ${b.name}, not with ${a.name}${why(a.run, incidentId)}`,
    );
  }
  const providers = new Set([...a.run.lines, ...b.run.lines].map((l) => l.provider));
  for (const p of [...providers].sort()) {
    const x = a.run.lines.filter((l) => l.provider === p).length;
    const y = b.run.lines.filter((l) => l.provider === p).length;
    if (x !== y) out.push(`${p}: ${x} message${x === 1 ? "" : "s"} with ${a.name}, ${y} with ${b.name}`);
  }
  return out.length ? out : [`${a.name} and ${b.name} tell the same messages to the same providers`];
}
