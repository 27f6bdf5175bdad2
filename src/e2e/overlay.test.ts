import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { waitUntil } from "../testing/capture-server.ts";
import { crashPod, seedShop } from "../testing/cluster.ts";
import { type Replica, startTestBed, type TestBed } from "../testing/replicas.ts";

/**
 * The MonConfig overlay (spec 2.5, 7.2; docs/configuration.md "The overlay"), end to end: `mon run` with
 * MON_CRD_ENABLED against the simulator serving mon's own CRD (deploy/crd), overlays written and deleted
 * through the API while it runs, the webhook as the witness.
 */
let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.stop();
  bed = undefined;
});

const CRD = parse(
  readFileSync(join(import.meta.dirname, "..", "..", "deploy", "crd", "monconfigs.mon.io.yaml"), "utf8"),
);
const overlay = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: "mon.io/v1beta1",
  kind: "MonConfig",
  metadata: { name, namespace: "mon" },
  spec,
});
type Body = { action?: string; incidentId?: string; delivery?: string; covers?: string[]; text?: string };
const bodies = (bed: TestBed): Body[] => bed.hook.requests.map((q) => q.json() as Body);
const told = (bed: TestBed, id: string) =>
  bodies(bed).filter((b) => b.incidentId === id || (b.covers ?? []).includes(id));
const healthOf = async (r: Replica) => (await (await fetch(`${r.health}/health`)).json()) as any;
const logged = (r: Replica, text: string) => r.log.join("").includes(text);

async function start(bed: TestBed, env: Record<string, string> = {}): Promise<Replica> {
  const r = await bed.replica(bed.installation("unlicensed"), "mon-0", { env: { MON_CRD_ENABLED: "true", ...env } });
  await waitUntil(() => logged(r, "leadership acquired"), "the replica to lead", 30_000).catch((error: Error) => {
    throw new Error(`${error.message}\n${r.log.join("")}`);
  });
  return r;
}

describe("the MonConfig overlay", () => {
  test("merged at startup; a change restarts mon in process with its incidents and conversations kept; an invalid edit is rejected and the current configuration stays", async () => {
    bed = await startTestBed();
    const b = bed;
    b.sim.apply(CRD);
    seedShop(b.sim, Date.now());
    crashPod(b.sim, "shop", "web-abc12-p0", 5, Date.now());
    // Present at startup: the shop namespace is out of scope, so its crash loop is not told.
    b.sim.apply(overlay("scope", { namespaces: ["!shop"] }));
    const r = await start(b);
    await waitUntil(async () => (await healthOf(r)).components?.["crd-watcher"]?.state === "ok", "the overlay watch");
    expect(logged(r, "config overlay: MonConfig mon/scope merged over the mounted configuration")).toBe(true);
    await waitUntil(async () => (await healthOf(r)).ready === true, "readiness", 30_000);
    expect(told(b, "Deployment/shop/web")).toEqual([]);

    // Deleting the overlay brings shop back in scope: one in-process restart, then the crash loops are told.
    b.sim.remove("mon.io/v1beta1", "MonConfig", "mon", "scope");
    await waitUntil(() => told(b, "Deployment/shop/web").length > 0, "the shop incident once in scope", 30_000).catch(
      (error: Error) => {
        throw new Error(`${error.message}\n${r.log.join("")}`);
      },
    );
    expect(logged(r, "config overlay: no MonConfig left; back to the mounted configuration")).toBe(true);
    const before = bodies(b).length;

    // A valid change restarts the work again: nothing is announced twice, no startup notice is sent.
    b.sim.apply(overlay("resync", { resyncSeconds: 60 }));
    await waitUntil(
      () => (r.log.join("").match(/configuration applied/g) ?? []).length >= 2,
      "the second restart",
      20_000,
    );
    // The incidents continue: a crash that heals is resolved in the conversation the first process opened.
    b.sim.patchStatus("v1", "Pod", "shop", "web-abc12-p0", {
      phase: "Running",
      conditions: [{ type: "Ready", status: "True" }],
      containerStatuses: [
        {
          name: "web",
          image: "ghcr.io/shop/web:1.0",
          imageID: "",
          ready: true,
          started: true,
          restartCount: 5,
          state: { running: { startedAt: new Date().toISOString() } },
        },
      ],
    });
    await waitUntil(
      () => told(b, "Deployment/shop/web").some((m) => m.action === "resolve"),
      "the resolve of the shop incident",
      60_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${r.log.join("")}\n${JSON.stringify(bodies(b), null, 1)}`);
    });
    const after = bodies(b).slice(before);
    expect(after.filter((m) => m.action === "announce" && m.incidentId === "Deployment/shop/web")).toEqual([]);
    expect(after.filter((m) => m.delivery === "notice" || m.delivery === "startup summary")).toEqual([]);

    // An invalid edit (a ${file:} reference: overlay values are literal) is rejected; the configuration stays.
    b.sim.apply(overlay("zz-bad", { app: { clusterName: "${file:/etc/hostname}" } }));
    await waitUntil(() => logged(r, "config_overlay_invalid"), "the rejection to be logged", 20_000);
    const health = await healthOf(r);
    expect(health.components["config-overlay"]).toMatchObject({ state: "degraded", reason: "config_overlay_invalid" });
    expect(health.ready).toBe(true);
    expect(r.log.join("")).toContain("MonConfig mon/zz-bad");
    expect((r.log.join("").match(/configuration applied/g) ?? []).length).toBe(2);
    const metrics = await (await fetch(`${r.health}/metrics`)).text();
    expect(metrics).toContain('mon_config_overlay_changes_total{result="rejected"} 1');
    expect(metrics).toContain('mon_config_overlay_changes_total{result="applied"} 2');
  }, 120_000);

  test("an overlay invalid at startup leaves mon running on the mounted configuration, config-overlay degraded; it cannot turn Secret watching on against MON_WATCH_SECRETS=false", async () => {
    bed = await startTestBed();
    const b = bed;
    b.sim.apply(CRD);
    b.sim.apply(overlay("a-secrets", { watch: { secrets: true } }));
    b.sim.apply(overlay("b-bad", { silences: [{}] }));
    const r = await start(b, { MON_WATCH_SECRETS: "false" });
    const health = await healthOf(r);
    expect(health.components["config-overlay"]).toMatchObject({ state: "degraded", reason: "config_overlay_invalid" });
    expect(logged(r, "running on the mounted configuration")).toBe(true);
    await waitUntil(async () => (await healthOf(r)).ready === true, "readiness", 30_000);
    // The invalid one removed, the rest is valid — and changes nothing: Secret watching stays off, with a warning.
    b.sim.remove("mon.io/v1beta1", "MonConfig", "mon", "b-bad");
    await waitUntil(async () => (await healthOf(r)).components["config-overlay"]?.state === "ok", "config-overlay ok");
    expect(logged(r, "configuration applied")).toBe(false);
    expect(
      logged(r, "MonConfig mon/a-secrets: spec.watch.secrets: MON_WATCH_SECRETS=false keeps Secrets unwatched"),
    ).toBe(true);
    const coverage = (await healthOf(r)).coverage;
    expect(JSON.stringify(coverage)).toContain("disabled_by_config");
  }, 120_000);

  test("without the CRD installed mon runs on the mounted configuration, crd-watcher degraded (optional_api_unavailable), ready", async () => {
    bed = await startTestBed();
    const r = await start(bed);
    await waitUntil(async () => (await healthOf(r)).ready === true, "readiness", 30_000);
    const health = await healthOf(r);
    expect(health.components["crd-watcher"]).toMatchObject({ state: "degraded", reason: "optional_api_unavailable" });
    // The log says where the health server really listens: with a kubeconfig, on loopback only (issue 29.12).
    expect(r.log.join("")).toContain(
      `health server listening on 127.0.0.1:${new URL(r.health).port} (loopback only: mon runs with a kubeconfig; healthCheck.address opens it)`,
    );
  }, 60_000);
});
