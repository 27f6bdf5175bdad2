import { afterEach, describe, expect, test } from "bun:test";
import { waitUntil } from "../testing/capture-server.ts";
import { crashPod, seedShop } from "../testing/cluster.ts";
import { type Replica, startTestBed, type TestBed } from "../testing/replicas.ts";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.stop();
  bed = undefined;
});

/** A `mon run` on the shop (web crash-looping), Pro through the license server or Community; resolves once it sent its startup summary. */
async function monOnShop(options: {
  edition: "pro" | "community";
  statusEndpoint: boolean;
  /** The license server answers with a signature this build does not trust (a key set but never granted). */
  forged?: boolean;
}): Promise<{ r: Replica; key: string }> {
  bed = await startTestBed();
  seedShop(bed.sim, Date.now());
  crashPod(bed.sim, "shop", "web-abc12-p0", 5, Date.now());
  if (options.forged) bed.licenses.setForged(true);
  const files = bed.installation(options.edition === "pro" ? "licensed" : "unlicensed");
  const r = await bed.replica(files, "mon-0", { statusEndpoint: options.statusEndpoint });
  const hook = bed.hook;
  await waitUntil(
    () => hook.requests.some((q) => q.json().delivery === "startup summary"),
    "the startup summary",
    30_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${r.log.join("")}`);
  });
  return { r, key: files.key };
}

describe("/status (spec 4.1; docs/health.md)", () => {
  test("Pro: text and JSON show the open incident, control plane, upgrade readiness, zones, what cannot be seen, license, edition and providers, and never the license key", async () => {
    const { r, key } = await monOnShop({ edition: "pro", statusEndpoint: true });
    // The first usage round reads /readyz once the caches are synced, beside the first pass.
    let text = "";
    await waitUntil(async () => {
      text = await (await fetch(`${r.health}/status`)).text();
      return !text.includes("API server: not read yet");
    }, "the first /readyz reading");
    for (const section of [
      "Open incidents (1)",
      "Control plane",
      "Upgrade readiness",
      "Zones",
      "What cannot be seen",
      "License",
      "Edition\n  Pro",
      "Providers\n  kept: webhook",
    ])
      expect(text).toContain(section);
    expect(text).toContain("CrashLoopBackOff");
    // A healthy API server shows its last reading, not "not read yet" (issue 29.8).
    expect(text).toMatch(/API server: ready \(read \d+ s ago\)/);
    const response = await fetch(`${r.health}/status?format=json`);
    expect(response.status).toBe(200);
    const json = await response.json();
    expect(json).toMatchObject({
      leading: true,
      edition: "pro",
      license: { state: "active" },
      providers: { kept: ["webhook"], inactive: [] },
      controlPlane: { apiServer: { ready: true, failing: [] } },
      upgradeReadiness: { notReadyNodes: [] },
      zones: [{ zone: "none", nodes: 3, ready: 3, notReady: [] }],
    });
    expect(json.incidents.map((i: { id: string; reason: string }) => [i.id, i.reason])).toEqual([
      ["Deployment/shop/web", "CrashLoopBackOff"],
    ]);
    // Never a Secret value: not the license key, in either format.
    expect(text).not.toContain(key);
    expect(JSON.stringify(json)).not.toContain(key);
  }, 60_000);

  test("Community: the text keeps the Edition section, the JSON answers 402 pro_required", async () => {
    const { r } = await monOnShop({ edition: "community", statusEndpoint: true });
    const text = await fetch(`${r.health}/status`);
    expect(text.status).toBe(200);
    const body = await text.text();
    expect(body).toContain("Edition\n  Community");
    expect(body).not.toContain("Open incidents");
    const json = await fetch(`${r.health}/status?format=json`);
    expect(json.status).toBe(402);
    expect(await json.json()).toEqual({ error: "pro_required" });
  }, 60_000);

  test("a key set but not granted: Community /status and the log say why, never 'set license.key' (issue 29.6)", async () => {
    // A license server whose signatures this build does not trust (as the test server is to a released binary).
    const { r } = await monOnShop({ edition: "pro", statusEndpoint: true, forged: true });
    const body = await (await fetch(`${r.health}/status`)).text();
    expect(body).toContain("Edition\n  Community");
    expect(body).toContain(
      "are Pro; a license key is set, but no trusted answer has granted Pro yet (the license server answered with a signature this build does not trust).",
    );
    expect(body).not.toContain("set license.key");
    const log = r.log.join("");
    expect(log).toContain(`license: ${bed!.licenses.url} answered, but not with a signature this build trusts`);
    expect(log).toContain("mon stays Community");
    expect(log).not.toContain("HTTP 200");
    expect(log.match(/license: pending/g)).toHaveLength(1);
  }, 60_000);

  test("without healthCheck.statusEndpoint there is no /status (404)", async () => {
    const { r } = await monOnShop({ edition: "pro", statusEndpoint: false });
    expect((await fetch(`${r.health}/status`)).status).toBe(404);
    expect((await fetch(`${r.health}/status?format=json`)).status).toBe(404);
  }, 60_000);
});
