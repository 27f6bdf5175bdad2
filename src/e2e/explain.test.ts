import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useCleanup } from "../testing/cleanup.ts";
import { runCli } from "../testing/cli.ts";
import { type CaptureServer, startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { crashPod, seedShop, seedWorkload, startTestCluster, type TestCluster } from "../testing/cluster.ts";

/**
 * `mon explain` (issue 32), the real CLI against the real daemon's protected diagnostics: why mon told, held,
 * folded or stayed silent about an object.
 */
const track = useCleanup();
const TOKEN = "explain-0123456789abcdef";
const home = mkdtempSync(join(tmpdir(), "mon-explain-"));

async function cluster(alert: Record<string, unknown>, config: Record<string, unknown> = {}): Promise<TestCluster> {
  const c = track(await startTestCluster(alert, { cluster: "prod", config, diagnosticsToken: TOKEN }));
  seedShop(c.sim, c.clock.now());
  await c.settle();
  return c;
}

async function explain(c: TestCluster, object: string, ...more: string[]): Promise<string> {
  const url = c.daemon.healthUrl();
  if (!url) throw new Error("no health server");
  const run = await runCli(["explain", object, "--url", url, ...more], { home, env: { MON_DIAGNOSTICS_TOKEN: TOKEN } });
  if (run.code !== 0) throw new Error(`mon explain exited ${run.code}: ${run.stderr}`);
  return run.stdout;
}

const hook = async (): Promise<CaptureServer> => track(await startCaptureServer());

describe("mon explain: why mon told, held or stayed silent", () => {
  test("a silenced finding names the silence rule by file and line; a held one when its hold ends", async () => {
    const h = await hook();
    const c = await cluster(
      { webhook: { url: `${h.url}/mon` } },
      {
        silences: [{ namespaces: ["shop"], reasons: ["CrashLoopBackOff"], podNamePatterns: ["^api-"] }],
        watch: { secrets: false },
      },
    );
    crashPod(c.sim, "shop", "api-abc12-p0", 4, c.clock.now());
    // A pod started just now that crashed once: its crash loop must last 3 minutes before it is told.
    seedWorkload(c.sim, "shop", "fresh", ["n1"], c.clock.now() + 3_600_000);
    crashPod(c.sim, "shop", "fresh-abc12-p0", 1, c.clock.now());
    await c.settle();
    const silenced = await explain(c, "Pod/shop/api-abc12-p0");
    expect(silenced).toMatch(/^Pod\/shop\/api-abc12-p0\n/);
    expect(silenced).toMatch(
      /detected +CrashLoopBackOff \(medium\): container api of pod shop\/api-abc12-p0 is crash-looping/,
    );
    expect(silenced).toMatch(/suppressed +silenced by test\.yaml:\d+\n/);
    const held = await explain(c, "Pod/shop/fresh-abc12-p0");
    expect(held).toMatch(/held +its hold \(the condition must last before it is told\), until \d\d:\d\d:\d\d UTC/);
    expect(h.requests).toHaveLength(0);
    // A kind mon does not watch has no trace, and says why: a coverage gap.
    expect(await explain(c, "Secret/shop/db-credentials")).toBe(
      "Secret/shop/db-credentials\n  not watched: disabled_by_config — mon cannot see Secret objects (/health coverage)\n",
    );
  });

  test("a folded finding says into which incident and why; a told one what each provider answered", async () => {
    const h = await hook();
    const c = await cluster({ webhook: { url: `${h.url}/mon` } });
    // n3's kubelet stops: web's pod goes down with it, told with the node.
    c.sim.patchStatus("v1", "Node", undefined, "n3", {
      conditions: [
        {
          type: "Ready",
          status: "Unknown",
          reason: "NodeStatusUnknown",
          lastTransitionTime: new Date(c.clock.now()).toISOString(),
        },
      ],
    });
    await c.settle();
    await c.clock.advance(120_000);
    await c.settle();
    await waitUntil(() => h.requests.some((r) => r.json().incidentId === "Node//n3"), "the node's announcement");
    const node = await explain(c, "Node/n3");
    expect(node).toMatch(/decided +announce \(revision 1\): a message of its own/);
    await waitUntil(
      async () => (await explain(c, "Node/n3")).includes("delivered to webhook"),
      "the delivery in the trace",
    );
    const folded = await explain(c, "Deployment/shop/web");
    expect(folded).toMatch(
      /incident +folded into incident Node\/\/n3: its node failed: its pods are told with the node/,
    );
  });

  test("a finding over the hourly budget says it went into the overflow digest", async () => {
    const h = await hook();
    const c = await cluster({ webhook: { url: `${h.url}/mon`, hourlyBudget: 1 } });
    for (const n of ["app0", "app1"]) seedWorkload(c.sim, "shop", n, ["n1"], c.clock.now());
    await c.settle();
    for (const n of ["app0", "app1"]) {
      crashPod(c.sim, "shop", `${n}-abc12-p0`, 3, c.clock.now(), `panic: ${n} failed`);
      await c.settle();
    }
    await waitUntil(
      async () => (await explain(c, "Deployment/shop/app1")).includes("webhook: hourly budget reached"),
      "the budget fold in the trace",
    );
    const out = await explain(c, "Pod/shop/app1-abc12-p0");
    expect(out).toMatch(/decided +announce \(revision 1\): a message of its own/);
    // The incident id form shows every object it concerns.
    const incident = await explain(c, "Deployment/shop/app1", "--incident");
    expect(incident).toContain("Pod/shop/app1-abc12-p0");
    expect(incident).toContain("webhook: hourly budget reached, goes into its overflow digest");
  });
});
