import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeReady } from "../sim/scenarios/builders.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { startCaptureServer } from "../testing/capture-server.ts";
import { crashPod, seedShop, startTestCluster, healPod } from "../testing/cluster.ts";

const track = useCleanup();

/** The audit log's entries, one JSON object per line. */
const entriesOf = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

describe("audit log: the daemon against the simulator", () => {
  test.each(["pro", "community"] as const)(
    "Pro writes one JSON line per decision to the configured file; Community writes none (%s)",
    async (edition) => {
      const path = join(mkdtempSync(join(tmpdir(), "mon-audit-e2e-")), "audit.jsonl");
      const hook = track(await startCaptureServer());
      const cluster = track(
        await startTestCluster(
          { webhook: { url: `${hook.url}/mon` } },
          { cluster: "prod", edition, config: { auditLog: { output: path } } },
        ),
      );
      const { sim, clock } = cluster;
      seedShop(sim, clock.now());
      crashPod(sim, "shop", "web-abc12-p0", 7, clock.now());
      await cluster.settle();
      crashPod(sim, "shop", "api-abc12-p0", 3, clock.now());
      await cluster.settle();
      await clock.advance(90_000);
      healPod(sim, "shop", "api-abc12-p0", 4, clock.now());
      await cluster.settle();
      await hook.waitFor(3);
      await cluster.stop();
      if (edition === "community") {
        expect(existsSync(path)).toBe(false);
        return;
      }
      const entries = entriesOf(path);
      expect(entries.map((e) => [e.decision, e.delivery, e.incidentId])).toEqual([
        ["announced", "startup summary", "Deployment/shop/web"],
        ["announced", "absent", "Deployment/shop/api"],
        ["resolved", "absent", "Deployment/shop/api"],
      ]);
      expect(entries[2]).toMatchObject({
        cluster: "prod",
        reason: "CrashLoopBackOff",
        tier: "medium",
        mode: "notify",
        revision: 2,
        openSeconds: 90,
        dedupKey: "mon-prod-deployment-shop-api-notify",
        root: { kind: "Deployment", namespace: "shop", name: "api" },
      });
    },
  );

  test("Pro: a page-tier problem in the startup summary also goes to paging tools on its own: a second entry says delivery paging", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "mon-audit-e2e-")), "audit.jsonl");
    const hook = track(await startCaptureServer());
    const cluster = track(
      await startTestCluster(
        { webhook: { url: `${hook.url}/mon` } },
        {
          cluster: "prod",
          edition: "pro",
          config: { auditLog: { output: path }, severityByReason: { crashloopbackoff: "critical" } },
        },
      ),
    );
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    crashPod(sim, "shop", "web-abc12-p0", 7, clock.now());
    await cluster.settle();
    await hook.waitFor(1);
    await cluster.stop();
    const entries = entriesOf(path);
    expect(entries.map((e) => [e.decision, e.delivery, e.incidentId, e.mode])).toEqual([
      ["announced", "startup summary", "Deployment/shop/web", "page"],
      ["announced", "paging", "Deployment/shop/web", "page"],
    ]);
  });

  test("a lost node writes one skipped entry per workload folded into it, naming it in `subject`", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "mon-audit-e2e-")), "audit.jsonl");
    const hook = track(await startCaptureServer());
    const cluster = track(
      await startTestCluster(
        { webhook: { url: `${hook.url}/mon` } },
        { cluster: "prod", edition: "pro", config: { auditLog: { output: path } } },
      ),
    );
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    sim.patchStatus("v1", "Node", undefined, "n3", { conditions: [nodeReady("Unknown", clock.now())] });
    await cluster.settle();
    await cluster.settle();
    await hook.waitFor(1);
    await cluster.stop();
    const entries = entriesOf(path);
    expect(entries.map((e) => [e.decision, e.skipReason, e.incidentId, e.subject?.name])).toEqual([
      ["skipped", "node_inhibition", "Node//n3", "web"],
      ["announced", undefined, "Node//n3", undefined],
    ]);
  });
});
