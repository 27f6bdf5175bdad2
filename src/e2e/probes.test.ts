import { describe, expect, test } from "bun:test";
import { createServer, type AddressInfo } from "node:net";
import { useCleanup } from "../testing/cleanup.ts";
import { startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { seedShop, startTestCluster } from "../testing/cluster.ts";

const track = useCleanup();

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe("active probes: the daemon against the simulator", () => {
  test.each(["pro", "community"] as const)(
    "Pro: a tcp target refusing for 3 rounds is announced, and resolved on its first success; Community runs no probes (%s)",
    async (edition) => {
      const port = await closedPort();
      const hook = track(await startCaptureServer());
      const cluster = track(
        await startTestCluster(
          { webhook: { url: `${hook.url}/mon` } },
          {
            cluster: "prod",
            edition,
            config: {
              activeProbeMonitor: {
                enabled: true,
                intervalSeconds: 30,
                failureThreshold: 3,
                tcp: [{ name: "orders-db", address: `127.0.0.1:${port}` }],
              },
            },
          },
        ),
      );
      const { sim, clock, daemon } = cluster;
      seedShop(sim, clock.now());
      await cluster.settle();
      if (edition === "community") {
        // Built (the license may turn Pro on while running) but never run: no round, no target checked.
        await clock.advance(120_000);
        expect(daemon.probes?.latest()).toEqual([]);
        expect(daemon.health.report().components.probes).toBeUndefined();
        return;
      }
      const probes = daemon.probes!;
      for (let round = 1; round < 3; round++) {
        await waitUntil(() => clock.pending() > 0, "the next probe round to be scheduled");
        await clock.advance(30_000);
      }
      await waitUntil(() => probes.latest().length === 1, "the probe to be reported");
      await cluster.settle();
      const [told] = await hook.waitFor(1);
      expect(told!.json()).toMatchObject({
        action: "announce",
        incidentId: "Probe//orders-db",
        reason: "ActiveProbeFailure",
      });
      expect(told!.json().text).toStartWith("🟠 probe orders-db: ActiveProbeFailure [prod]");
      expect(told!.json().text).toContain("is failing: connection refused (3 rounds in a row)");

      const server = createServer((s) => s.end());
      await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
      try {
        await clock.advance(30_000);
        await waitUntil(() => probes.latest().length === 0, "the probe to answer again");
        await cluster.settle();
        const [, resolved] = await hook.waitFor(2);
        expect(resolved!.json()).toMatchObject({ action: "resolve", incidentId: "Probe//orders-db" });
      } finally {
        server.close();
      }
    },
  );
});
