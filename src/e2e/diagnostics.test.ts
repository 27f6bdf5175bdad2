import { afterEach, describe, expect, test } from "bun:test";
import { waitUntil } from "../testing/capture-server.ts";
import { crashPod, seedShop } from "../testing/cluster.ts";
import { startTestBed, type TestBed } from "../testing/replicas.ts";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.stop();
  bed = undefined;
});

const TOKEN = "diag-0123456789abcdef";

describe("diagnostics endpoints (healthCheck.diagnostics; docs/health.md)", () => {
  test("a bearer token guards /incidents, /deadletters (list, retry, delete) and /test-alert, which reports each provider's answer", async () => {
    bed = await startTestBed();
    const { sim, hook } = bed;
    seedShop(sim, Date.now());
    crashPod(sim, "shop", "web-abc12-p0", 5, Date.now());
    // The receiver refuses everything at first: the startup message and summary become dead letters.
    hook.setDefault({ status: 400, body: "bad request" });
    const r = await bed.replica(bed.installation("unlicensed"), "mon-0", { diagnosticsToken: TOKEN });
    const call = (path: string, init: RequestInit = {}, token: string | null = TOKEN) =>
      fetch(`${r.health}${path}`, {
        ...init,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers ?? {}) },
      });
    const letters = async () =>
      (await (await call("/deadletters")).json()) as { id: string; incidentId: string; retryable: boolean }[];
    await waitUntil(
      async () =>
        (
          await call("/deadletters").then(
            (res) => (res.ok ? res.json() : []),
            () => [],
          )
        ).length === 2,
      "two dead letters",
      30_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${r.log.join("")}`);
    });

    // No token, a wrong one: 401, with nothing in the body.
    for (const token of [null, "diag-0123456789abcdeX"]) {
      const denied = await call("/incidents", {}, token);
      expect(denied.status).toBe(401);
      expect(denied.headers.get("www-authenticate")).toBe('Bearer realm="mon"');
      expect(await denied.json()).toEqual({ error: "unauthorized" });
    }
    const incidents = (await (await call("/incidents")).json()) as { id: string; reason: string; told: boolean }[];
    expect(incidents.map((i) => [i.id, i.reason, i.told])).toEqual([["Deployment/shop/web", "CrashLoopBackOff", true]]);

    // The receiver is fixed: a retried dead letter is delivered, under its own message id.
    hook.setDefault({ status: 200, body: "ok" });
    const [summary, startup] = [...(await letters())].sort((a, b) => (a.incidentId < b.incidentId ? 1 : -1));
    expect(summary!.retryable).toBe(true);
    const before = hook.requests.length;
    const retried = await call(`/deadletters/${encodeURIComponent(summary!.id)}/retry`, { method: "POST" });
    expect(retried.status).toBe(202);
    const messageId = summary!.id.slice("webhook:".length);
    await waitUntil(
      () => hook.requests.slice(before).some((q) => q.json().messageId === messageId),
      "the retried message",
      20_000,
    );
    // Delete forgets one; deleting it again, or retrying what is gone, is 404.
    expect((await call(`/deadletters/${encodeURIComponent(startup!.id)}`, { method: "DELETE" })).status).toBe(204);
    expect(await letters()).toEqual([]);
    expect((await call(`/deadletters/${encodeURIComponent(startup!.id)}`, { method: "DELETE" })).status).toBe(404);
    expect((await call(`/deadletters/${encodeURIComponent(startup!.id)}/retry`, { method: "POST" })).status).toBe(404);

    // A test alert through the chosen providers: each outcome as the provider answered.
    const test = await call("/test-alert", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ providers: ["webhook", "slack"] }),
    });
    expect(await test.json()).toEqual({
      results: [
        { provider: "webhook", outcome: "delivered" },
        { provider: "slack", outcome: "unknown_provider", detail: "not a kept provider" },
      ],
    });
    expect(hook.requests.some((q) => q.json().reason === "TestAlert")).toBe(true);
    hook.setDefault({ status: 400, body: "no" });
    expect(await (await call("/test-alert", { method: "POST" })).json()).toEqual({
      results: [{ provider: "webhook", outcome: "rejected", detail: expect.stringContaining("400") }],
    });
  }, 60_000);
});
