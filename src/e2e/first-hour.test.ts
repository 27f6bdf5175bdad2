import { afterAll, describe, expect, test } from "bun:test";
import { type AddressInfo, createServer } from "node:net";
import { waitUntil } from "../testing/capture-server.ts";
import { crashPod, seedShop } from "../testing/cluster.ts";
import { createInstallation, type Replica, startReplica } from "../testing/replicas.ts";
import { startSimulator, type Simulator } from "../sim/simulator.ts";

/**
 * The first hour, tried as a new user would (issue "everything the spec promises"): what the log of a real
 * `mon run` says when a provider cannot be reached.
 */
let sim: Simulator | undefined;
let replica: Replica | undefined;
afterAll(async () => {
  replica?.child.kill("SIGKILL");
  await sim?.stop();
});

/** A loopback port where nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("the first hour: the log says what went wrong", () => {
  test("a provider that cannot be reached is named with its host and the system's error code, never the path", async () => {
    sim = await startSimulator();
    sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "mon" } });
    seedShop(sim, Date.now());
    crashPod(sim, "shop", "web-abc12-p0", 5, Date.now());
    const port = await closedPort();
    const files = createInstallation(sim, {
      webhookUrl: `http://127.0.0.1:${port}/hooks/secret-path-token`,
      licenseUrl: "http://127.0.0.1:1",
      licenseKey: "",
    });
    const r = await startReplica(files, "mon-0");
    replica = r;
    const line = `delivery to webhook failed (network: 127.0.0.1:${port} ECONNREFUSED)`;
    await waitUntil(() => r.log.join("").includes(line), "the failed delivery in the log", 30_000).catch(
      (error: Error) => {
        throw new Error(`${error.message}\n${r.log.join("")}`);
      },
    );
    expect(r.log.join("")).not.toContain("secret-path-token");
  }, 60_000);
});
