import type { Delivery } from "../../deliver/delivery.ts";
import { redact } from "../../redact/redact.ts";
import { deadLetterId } from "../../model/dispatch.ts";
import { refLabel } from "../../model/object-ref.ts";
import { renderTestAlert } from "../../notify/notice.ts";
import type { ConfiguredProvider } from "../../providers/_kit/build.ts";
import type { Router } from "../../route/router.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { DiagnosticsSource, TestAlertResult } from "../../server/diagnostics.ts";
import { VERSION } from "../../version.ts";
import type { KeptIncident } from "../../incident/lifecycle.ts";
import type { TraceEntry } from "../../model/trace.ts";
import type { Observers } from "../delivery/observe.ts";
import type { PassLoop } from "../pass/loop.ts";
import { pageTime, rangeOf, renderIncidentPage, renderIncidentsPage } from "../../page/html.ts";

/** How long one provider may take to answer a test alert, ms. */
const TEST_ALERT_TIMEOUT_MS = 20_000;

/**
 * What the diagnostics endpoints show and do on the leader (docs/health.md "Diagnostics"): the incidents the
 * lifecycle keeps (told or held), the dead letters (retry queues the refused job again, delete forgets it),
 * and a test alert sent straight through the chosen kept providers, bypassing the outbox, so each answer is
 * reported as it came.
 */
export function createDiagnostics(deps: {
  loop: PassLoop;
  delivery: Delivery;
  router: Router;
  providers: readonly ConfiguredProvider[];
  clock: Clock;
  cluster: string;
  /** The traces of `mon explain`. */
  observe: Pick<Observers, "traces" | "unwatched" | "history">;
}): DiagnosticsSource {
  const { clock } = deps;
  // The traces begin with this leadership term: they are kept in memory only.
  const tracedSince = clock.now();
  const iso = (ms: number) => new Date(ms).toISOString();
  const traced = (entries: readonly TraceEntry[]) => entries.map((e) => ({ ...e, at: iso(e.at) }));
  const incidentView = (i: KeptIncident) => ({
    id: i.id,
    root: refLabel(i.root),
    reason: i.rootReason,
    tier: i.tier,
    mode: i.mode,
    told: i.announced || Boolean(i.digested),
    openedAt: iso(i.openedAt),
    revision: i.revision,
    acknowledged: Boolean(i.ack),
    findings: i.findings.map((f) => ({ reason: f.reason, object: refLabel(f.object), summary: f.summary })),
  });
  const history = deps.observe.history;
  return {
    incidentsPage(query) {
      const now = clock.now();
      return renderIncidentsPage({
        cluster: deps.cluster,
        now,
        stories: history.list(now),
        blind: history.blindPeriods(),
        query: { q: query.q, namespace: query.namespace, reason: query.reason },
        source: history.persistent
          ? `told by this installation of mon, kept in its state store (this leader since ${pageTime(tracedSince)})`
          : `told by this mon since it began leading at ${pageTime(tracedSince)}: without a state file (Community) this history is kept in memory, and a restart begins it again`,
        starts: history.startTimes(),
        ...(rangeOf(query.range) ? { range: rangeOf(query.range) } : {}),
        thread: (provider, incident) => deps.delivery.conversation(provider, incident),
      });
    },
    incidentPage(id) {
      const story = history.get(id);
      if (!story) return undefined;
      return renderIncidentPage(story, deps.observe.traces.ofIncident(id), {
        cluster: deps.cluster,
        now: clock.now(),
        thread: (provider, incident) => deps.delivery.conversation(provider, incident),
      });
    },
    incidents: () => [...deps.loop.state().incidents.values()].map(incidentView),
    incident(id) {
      const i = deps.loop.state().incidents.get(id);
      const trace = deps.observe.traces.ofIncident(id);
      if (!i && Object.keys(trace).length === 0) return undefined;
      return {
        ...(i ? incidentView(i) : { id }),
        trace: Object.fromEntries(Object.entries(trace).map(([key, entries]) => [key, traced(entries)])),
      };
    },
    explain(object) {
      // A kind mon does not watch has no trace: that is the answer (a coverage gap, spec 2.6).
      const gap = deps.observe.unwatched(object.split("/")[0] ?? "");
      return {
        object,
        trace: traced(deps.observe.traces.of(object)),
        tracedSince: iso(tracedSince),
        ...(gap ? { notWatched: gap } : {}),
      };
    },
    deadLetters: () =>
      deps.delivery.deadLetters().map((l) => ({
        id: deadLetterId(l),
        provider: l.provider,
        incidentId: l.incidentId,
        messageId: l.messageId,
        action: l.action,
        reason: l.reason,
        at: iso(l.at),
        retryable: l.job !== undefined,
      })),
    retryDeadLetter: (id) => deps.delivery.retryDeadLetter(id, clock.now()),
    deleteDeadLetter: (id) => deps.delivery.deleteDeadLetter(id),
    async testAlert(names) {
      const kept = deps.providers.filter((p) => deps.router.active.includes(p.definition.name));
      const chosen = names.length ? names : kept.map((p) => p.definition.name);
      const message = renderTestAlert(VERSION, deps.cluster, clock.now());
      return Promise.all(
        chosen.map(async (name): Promise<TestAlertResult> => {
          const configured = kept.find((p) => p.definition.name === name);
          if (!configured) return { provider: name, outcome: "unknown_provider", detail: "not a kept provider" };
          try {
            const outcome = await configured.provider.send(message, {
              signal: AbortSignal.timeout(TEST_ALERT_TIMEOUT_MS),
              now: clock.now(),
            });
            if (outcome.kind === "ok") return { provider: name, outcome: "delivered" };
            if (outcome.kind === "rateLimited") return { provider: name, outcome: "rate_limited" };
            // The provider's answer may echo what it was sent: credentials are removed, as for dead letters.
            return {
              provider: name,
              outcome: outcome.kind === "permanent" ? "rejected" : "retryable",
              detail: redact(outcome.reason).text,
            };
          } catch (error) {
            return { provider: name, outcome: "retryable", detail: redact((error as Error).message).text };
          }
        }),
      );
    },
  };
}
