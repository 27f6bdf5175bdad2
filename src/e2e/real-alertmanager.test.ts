import { describe, expect } from "bun:test";
import { createFakeClock } from "../runtime/clock.ts";
import { startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { crashPod, seedShop, startTestCluster, healPod } from "../testing/cluster.ts";
import { getJson, realTest, type RealProcess, startAlertmanager } from "../testing/real-components.ts";

/**
 * The alertmanager provider against a real Alertmanager (Debian's prometheus-alertmanager, 0.25 in CI): the
 * daemon runs against the simulator and posts to Alertmanager's API v2 on loopback; Alertmanager routes to a
 * webhook receiver, so its grouping is seen as a user's receivers see it (docs/providers/alertmanager.md).
 */
const track = useCleanup();
const real = realTest("mon against a real Alertmanager", "alertmanager");
const TOKEN = "diagnostics-token-for-the-test";

/** An alert as Alertmanager's API v2 lists it (the fields the tests read). */
interface AmAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  status: { state: "active" | "suppressed" | "unprocessed"; silencedBy: string[] };
}

/** A notification Alertmanager sent its webhook receiver. */
interface AmNotification {
  status: "firing" | "resolved";
  groupLabels: Record<string, string>;
  alerts: { status: string; labels: Record<string, string> }[];
}

const alerts = (am: RealProcess, query = "") => getJson<AmAlert[]>(am, `/api/v2/alerts${query}`);

describe("alertmanager: the daemon against a real Alertmanager", () => {
  real(
    "an incident is one alert with the documented labels, grouped as documented; an update replaces it, a silence does not confuse mon, the resolve ends it for good",
    async () => {
      const receiver = track(await startCaptureServer());
      const am = track(await startAlertmanager(`${receiver.url}/am`, ["cluster", "mon_dedup_key"]));
      // Alertmanager keeps the wall clock, mon the test's fake clock. Started ten minutes behind, every instant
      // mon stamps (a resolve's endsAt) is in Alertmanager's past, however far this test moves mon's clock.
      const clock = createFakeClock(Date.now() - 600_000);
      const cluster = track(
        await startTestCluster(
          { alertmanager: { urls: [am.url], repostSeconds: 600, labels: { team: "platform" } } },
          { cluster: "prod-eu1", clock },
        ),
      );
      const { sim } = cluster;
      seedShop(sim, clock.now());
      await cluster.settle();

      // Announce: one alert, the documented labels and annotations.
      crashPod(sim, "shop", "api-abc12-p0", 4, clock.now());
      await cluster.settle();
      await waitUntil(async () => (await alerts(am)).length === 1, "the incident's alert in Alertmanager");
      const [announced] = await alerts(am);
      const key = "mon-prod-eu1-deployment-shop-api-notify";
      expect(announced!.labels).toEqual({
        alertname: "MonIncident",
        mon_dedup_key: key,
        cluster: "prod-eu1",
        namespace: "shop",
        severity: "warning",
        team: "platform",
      });
      expect(announced!.annotations.summary).toStartWith("deployment shop/api: CrashLoopBackOff in 1 pod");
      expect(announced!.annotations.description).toStartWith("🟠 deployment shop/api: CrashLoopBackOff in 1 pod");
      expect(announced!.status.state).toBe("active");
      // Valid for three re-post periods from mon's now.
      expect(Date.parse(announced!.endsAt) - Date.parse(announced!.startsAt)).toBeGreaterThanOrEqual(1_800_000);
      // Grouped by cluster and dedup key: the receiver's notification is this incident alone.
      await receiver.waitFor(1, 30_000);
      const firing = receiver.requests[0]!.json() as AmNotification;
      expect(firing.status).toBe("firing");
      expect(firing.groupLabels).toEqual({ cluster: "prod-eu1", mon_dedup_key: key });
      expect(firing.alerts.map((a) => a.labels.mon_dedup_key)).toEqual([key]);

      // A silence made in Alertmanager (a user's maintenance window): Alertmanager mutes the alert.
      const now = new Date();
      const silence = await fetch(`${am.url}/api/v2/silences`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          matchers: [{ name: "mon_dedup_key", value: key, isRegex: false, isEqual: true }],
          startsAt: now.toISOString(),
          endsAt: new Date(now.getTime() + 3_600_000).toISOString(),
          createdBy: "on-call",
          comment: "deploying a fix",
        }),
      });
      expect(silence.status).toBe(200);
      const { silenceID } = (await silence.json()) as { silenceID: string };
      await waitUntil(async () => (await alerts(am))[0]?.status.state === "suppressed", "the alert to be silenced");

      // An update while silenced: the same alert (its labels are its identity), new text, still silenced.
      crashPod(sim, "shop", "api-abc12-p1", 3, clock.now());
      await cluster.settle();
      await clock.advance(300_000);
      await cluster.settle();
      await waitUntil(
        async () => (await alerts(am))[0]?.annotations.description !== announced!.annotations.description,
        "the update to reach Alertmanager",
      );
      const updated = await alerts(am);
      expect(updated).toHaveLength(1);
      expect(updated[0]!.labels).toEqual(announced!.labels);
      expect(updated[0]!.startsAt).toBe(announced!.startsAt);
      expect(updated[0]!.status).toMatchObject({ state: "suppressed", silencedBy: [silenceID] });

      // mon was not confused: every post was accepted, nothing retried or dead-lettered.
      const metrics = await cluster.daemon.metrics.registry.metrics();
      expect(metrics).toMatch(/^mon_delivery_notifications_total\{provider="alertmanager"\} [2-9]/m);
      expect(metrics).not.toMatch(
        /^mon_delivery_(retries|dead_letters|dropped)_total\{provider="alertmanager"[^}]*\} [1-9]/m,
      );

      // The silence expires early (the fix is out); the resolve then ends the alert.
      expect((await fetch(`${am.url}/api/v2/silence/${silenceID}`, { method: "DELETE" })).status).toBe(200);
      for (const pod of ["api-abc12-p0", "api-abc12-p1"]) healPod(sim, "shop", pod, 5, clock.now());
      await cluster.settle();
      await waitUntil(
        async () => (await alerts(am, "?active=true")).length === 0,
        "the alert to leave the active list",
      );
      await waitUntil(
        () => receiver.requests.some((r) => (r.json() as AmNotification).status === "resolved"),
        "Alertmanager's resolved notification",
        30_000,
      );
      const resolved = receiver.requests.map((r) => r.json() as AmNotification).find((n) => n.status === "resolved")!;
      expect(resolved.alerts.map((a) => [a.labels.mon_dedup_key, a.status])).toEqual([[key, "resolved"]]);

      // A re-post period later, nothing brought it back.
      await clock.advance(600_000);
      await cluster.settle();
      expect(await alerts(am, "?active=true")).toEqual([]);
    },
    120_000,
  );

  real(
    "/test-alert reaches a real Alertmanager as one short-lived alert",
    async () => {
      const receiver = track(await startCaptureServer());
      const am = track(await startAlertmanager(`${receiver.url}/am`, ["cluster", "mon_dedup_key"]));
      const cluster = track(
        await startTestCluster(
          { alertmanager: { urls: [am.url], repostSeconds: 60 } },
          { cluster: "prod-eu1", diagnosticsToken: TOKEN },
        ),
      );
      const answer = await fetch(`${cluster.daemon.healthUrl()}/test-alert`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ providers: ["alertmanager"] }),
      });
      expect(await answer.json()).toEqual({ results: [{ provider: "alertmanager", outcome: "delivered" }] });
      await waitUntil(async () => (await alerts(am)).length === 1, "the test alert in Alertmanager");
      const [alert] = await alerts(am);
      expect(alert!.labels).toMatchObject({ alertname: "MonIncident", cluster: "prod-eu1", severity: "warning" });
      expect(alert!.labels.mon_dedup_key).toStartWith("mon-prod-eu1-test-alert-");
      expect(alert!.annotations.summary).toContain("Nothing is wrong.");
      // It ends on its own three periods later: never an open incident in Alertmanager.
      expect(Date.parse(alert!.endsAt) - Date.parse(alert!.startsAt)).toBe(180_000);
      await receiver.waitFor(1, 30_000);
      expect((receiver.requests[0]!.json() as AmNotification).groupLabels.mon_dedup_key).toBe(
        alert!.labels.mon_dedup_key,
      );
    },
    60_000,
  );
});
