import { bearer, basic } from "./_kit/auth.ts";
import * as v from "valibot";
import type { Outcome } from "../model/dispatch.ts";
import type { Message } from "../model/message.ts";
import { createSystemClock, type Cancel } from "../runtime/clock.ts";
import { defineProvider, nowOf } from "./_kit/define.ts";
import { jsonApi, truncate } from "./_kit/http.ts";
import { ends } from "./_kit/keys.ts";

const Options = v.pipe(
  v.object({
    urls: v.pipe(
      v.array(v.pipe(v.string(), v.url())),
      v.minLength(1),
      v.description("Every Alertmanager replica (alerts are posted to each)."),
    ),
    repostSeconds: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(10),
        v.maxValue(600),
        v.description("How often open alerts are posted again; each is valid for three times this."),
      ),
      60,
    ),
    labels: v.optional(
      v.pipe(v.record(v.string(), v.string()), v.description("Static labels added to every alert.")),
      {},
    ),
    username: v.optional(v.pipe(v.string(), v.description("Basic auth user (behind an auth proxy)."))),
    basicAuthPassword: v.optional(
      v.pipe(v.string(), v.description("Basic auth password (a credential: ${file:/path}).")),
    ),
    bearerToken: v.optional(v.pipe(v.string(), v.description("Bearer token (a credential: ${file:/path})."))),
  }),
  v.check((o) => !(o.basicAuthPassword && o.bearerToken), "set basicAuthPassword or bearerToken, not both"),
);

/**
 * Prometheus Alertmanager as a target (providers.md `alertmanager`, Alerta-type: routed like a pager). An
 * incident is one alert whose identity is its label set (`alertname="MonIncident"`, `mon_dedup_key`,
 * `cluster`, `namespace`, and the `severity` it was announced with); it is posted to every replica, and while it is open it is
 * posted again every `repostSeconds` with `endsAt` three periods ahead, so Alertmanager never resolves it on
 * its own. The resolve posts it with `endsAt` = now. A test alert (/test-alert) is posted once, valid for three
 * periods, and never re-posted. Accepted when any replica accepts. `check` reads
 * `/api/v2/status` of each.
 */
export default defineProvider({
  name: "alertmanager",
  kind: "paging",
  title: "Prometheus Alertmanager",
  guide: { credential: "No credential unless an auth proxy fronts Alertmanager: then its password or bearer token." },
  threading: "dedup_key",
  options: Options,
  credentials: ["basicAuthPassword", "bearerToken"],
  create(options, deps) {
    const clock = deps.clock ?? createSystemClock();
    const auth: Record<string, string> = options.bearerToken
      ? { authorization: bearer(options.bearerToken) }
      : options.basicAuthPassword
        ? { authorization: basic(options.username ?? "", options.basicAuthPassword) }
        : {};
    const api = jsonApi(deps.http, "", auth);
    // The label set is the alert's identity: its severity stays what it was announced with.
    const open = new Map<string, { message: Message; severity: string }>();
    const periodMs = options.repostSeconds * 1000;
    let timer: Cancel | undefined;

    const post = async (
      alerts: readonly Record<string, unknown>[],
      signal: AbortSignal,
      now: number,
    ): Promise<Outcome> => {
      const outcomes = await Promise.all(
        options.urls.map(
          async (u) => (await api("POST", `${u.replace(/\/+$/, "")}/api/v2/alerts`, alerts, signal, now)).outcome,
        ),
      );
      return outcomes.find((o) => o.kind === "ok") ?? outcomes.find((o) => o.kind === "permanent") ?? outcomes[0]!;
    };
    const repost = () => {
      timer = undefined;
      if (open.size === 0) return;
      const now = clock.now();
      void post(
        [...open.values()].map((o) =>
          alertOf(o.message, deps.clusterName, options.labels, now + 3 * periodMs, o.severity),
        ),
        AbortSignal.timeout(10_000),
        now,
      ).then((o) => {
        if (o.kind !== "ok")
          deps.logger.warn(
            `alertmanager: re-posting ${open.size} open alert(s) failed (${o.kind === "rateLimited" ? "rate limited" : o.reason}); retried in ${options.repostSeconds} s`,
          );
      });
      timer = clock.setTimer(repost, periodMs);
    };

    return {
      async send(message, context) {
        const key = message.dedupKey;
        const severity = open.get(key)?.severity ?? (message.mode === "page" ? "critical" : "warning");
        // A notice (the test alert of /test-alert) is no incident: it fires once and ends on its own after
        // three periods, never re-posted.
        if (ends(message)) open.delete(key);
        else if (message.delivery !== "notice") open.set(key, { message, severity });
        const outcome = await post(
          [
            alertOf(
              message,
              deps.clusterName,
              options.labels,
              ends(message) ? message.at : context.now + 3 * periodMs,
              severity,
            ),
          ],
          context.signal,
          context.now,
        );
        if (open.size > 0 && !timer) timer = clock.setTimer(repost, periodMs);
        return outcome;
      },
      async check(signal) {
        for (const u of options.urls) {
          const { outcome } = await api(
            "GET",
            `${u.replace(/\/+$/, "")}/api/v2/status`,
            undefined,
            signal,
            nowOf(deps),
          );
          if (outcome.kind !== "ok") return outcome;
        }
        return { kind: "ok" };
      },
      close() {
        timer?.();
        timer = undefined;
      },
    };
  },
});

/** The alert for an incident message, valid until `endsAt` (epoch ms), with the `severity` label it was announced with. */
export function alertOf(
  m: Message,
  cluster: string,
  labels: Readonly<Record<string, string>>,
  endsAt: number,
  severity: string,
): Record<string, unknown> {
  return {
    labels: {
      ...labels,
      alertname: "MonIncident",
      mon_dedup_key: m.dedupKey,
      cluster,
      ...(m.root.namespace ? { namespace: m.root.namespace } : {}),
      severity,
    },
    annotations: { summary: truncate(m.title, 500), description: truncate(m.text, 20_000) },
    startsAt: new Date(m.at).toISOString(),
    endsAt: new Date(endsAt).toISOString(),
  };
}
