import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { crashPod, seedShop, seedWorkload, startTestCluster } from "../testing/cluster.ts";
import { startSimulator } from "../sim/simulator.ts";
import { startLicenseServer } from "../testing/license-server.ts";
import { chromiumBinary, chromiumExpected, openChromium } from "../testing/chromium.ts";
import { createInstallation, type Installation, type Replica, startReplica } from "../testing/replicas.ts";

/**
 * The incidents page after a restart (issue 52 item 7): what a Community mon tells at startup only as its
 * startup summary is open on the page, and each such incident has its page, as /incidents (JSON) lists it.
 */
const track = useCleanup();
const TOKEN = "page-restart-0123456789abcdef";

describe("the incidents page after a restart", () => {
  test("incidents told only in the startup summary are on the page and each has its page, as the JSON lists them", async () => {
    const hook = track(await startCaptureServer());
    const alert = { webhook: { url: `${hook.url}/mon` } };
    const first = track(await startTestCluster(alert, { cluster: "prod", diagnosticsToken: TOKEN }));
    const { sim, clock } = first;
    seedShop(sim, clock.now());
    for (const name of ["orders", "billing", "search"]) {
      seedWorkload(sim, "shop", name, ["n1"], clock.now() - 3_600_000);
      crashPod(sim, "shop", `${name}-abc12-p0`, 5, clock.now());
    }
    await first.settle();
    await first.stopDaemon();
    const second = track(await startTestCluster(alert, { cluster: "prod", diagnosticsToken: TOKEN, sim, clock }));
    await waitUntil(async () => {
      await second.settle();
      await clock.advance(15_000);
      return hook.requests.some((r) => r.json().delivery === "startup summary");
    }, "the startup summary");
    const summary = hook.requests.map((r) => r.json()).find((m) => m.delivery === "startup summary")!;
    expect(summary.covers.length).toBeGreaterThanOrEqual(1);
    const base = second.daemon.healthUrl()!;
    const get = (path: string, accept = "text/html") =>
      fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN}`, accept } });
    const listed = (await (await get("/incidents", "application/json")).json()) as
      | { id: string }[]
      | { incidents: { id: string }[] };
    const ids = (Array.isArray(listed) ? listed : listed.incidents).map((i) => i.id);
    const page = await (await get("/incidents")).text();
    expect(page).not.toContain("Nothing is open.");
    for (const id of summary.covers as string[]) {
      expect(ids).toContain(id);
      expect(page).toContain(id.split("/").at(-1)!);
      const one = await get(`/incidents/${encodeURIComponent(id)}`);
      expect([id, one.status]).toEqual([id, 200]);
      expect(await one.text()).toContain("startup");
    }
  }, 60_000);
});

describe("the incidents page's history across restarts and failovers (Pro, issue 54)", () => {
  /** A Pro installation (the real license path) on the simulator with the shop, one crash loop told. */
  async function installation() {
    const sim = track(await startSimulator());
    sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "mon" } });
    const hook = track(await startCaptureServer());
    const licenses = track(await startLicenseServer(() => Date.now()));
    seedShop(sim, Date.now());
    const files = createInstallation(sim, {
      webhookUrl: `${hook.url}/mon`,
      licenseUrl: licenses.url,
      licenseKey: licenses.addLicense(),
    });
    return { sim, hook, files };
  }
  const replica = async (files: Installation, name: string) => {
    const r = await startReplica(files, name, { diagnosticsToken: TOKEN });
    track({ close: async () => void r.child.kill("SIGKILL") });
    return r;
  };
  const page = async (r: Replica, path = "/incidents") =>
    fetch(`${r.health}${path}`, { headers: { authorization: `Bearer ${TOKEN}`, accept: "text/html" } });
  /** A status of the replica's health server, 0 while it does not answer yet. */
  const status = (r: Replica, path: string) =>
    fetch(`${r.health}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } }).then(
      (res) => res.status,
      () => 0,
    );

  test("a Pro mon restarted mid-incident, then a failover to a standby: the page still shows what was told, at the same address", async () => {
    const { sim, hook, files } = await installation();
    // Failing as mon starts: told in its startup summary, whose thread it continues.
    crashPod(sim, "shop", "api-abc12-p0", 5, Date.now());
    const first = await replica(files, "mon-a");
    const told = () =>
      hook.requests.filter((r) => [r.json().incidentId, ...(r.json().covers ?? [])].includes("Deployment/shop/api"));
    await waitUntil(() => told().length === 1, "the crash loop told", 60_000);
    const address = "/incidents/Deployment/shop/api";
    const before = await (await page(first, address)).text();
    expect(before).toContain("Messages as sent (1)");
    // A restart mid-incident (a rollout): the new process shows it, at the same address, with its message.
    first.child.kill("SIGTERM");
    await first.exited();
    const second = await replica(files, "mon-a");
    await waitUntil(() => second.leads(), "mon-a leads again", 30_000);
    await waitUntil(async () => (await status(second, "/readyz")) === 200, "the restarted mon ready", 30_000);
    const list = await (await page(second)).text();
    expect(list).toContain("Open (1)");
    expect(list).toContain("kept in its state store");
    expect(list).toMatch(/class="started-label"[^>]*>mon [^<]*restarted/);
    const again = await page(second, address);
    expect(again.status).toBe(200);
    // What the first process told, as it was sent (the restored summary may follow it).
    expect(await again.text()).toContain("Startup summary: 1 problem already open");
    // A failover: a standby takes over when the leader is gone, and shows the same history.
    const standby = await replica(files, "mon-b");
    await waitUntil(async () => (await status(standby, "/healthz")) === 200, "the standby is live", 30_000);
    second.child.kill("SIGKILL");
    await waitUntil(() => standby.leads(), "the standby leads", 60_000);
    await waitUntil(async () => (await status(standby, "/readyz")) === 200, "the new leader ready", 30_000);
    const taken = await page(standby, address);
    expect(taken.status).toBe(200);
    expect(await taken.text()).toContain("Startup summary: 1 problem already open");
    // What on-call sees after the failover, in a browser: kept in CI's artefacts, shown in docs/health.md.
    if (chromiumExpected()) {
      const tab = await openChromium(await chromiumBinary(), { width: 1280, height: 900 });
      try {
        await tab.open(`${standby.health}/incidents?token=${encodeURIComponent(TOKEN)}`);
        const out = mkdtempSync(join(tmpdir(), "mon-page-restart-"));
        await tab.screenshot(join(out, "incidents-restart-page.png"), true);
        const artefacts = process.env.MON_ARTEFACTS_DIR;
        if (artefacts) {
          mkdirSync(artefacts, { recursive: true });
          copyFileSync(join(out, "incidents-restart-page.png"), join(artefacts, "incidents-restart-page.png"));
        }
      } finally {
        tab.close();
      }
    }
    // Nothing was told twice meanwhile: one startup summary named it; the restarts only said it continues.
    expect(told().map((r) => r.json().delivery ?? r.json().action)).toEqual([
      "startup summary",
      ...told()
        .slice(1)
        .map(() => "restored summary"),
    ]);
  }, 240_000);
});
