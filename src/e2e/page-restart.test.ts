import { describe, expect, test } from "bun:test";
import { startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { crashPod, seedShop, seedWorkload, startTestCluster } from "../testing/cluster.ts";

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
