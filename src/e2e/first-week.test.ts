import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeReady, runningStatus } from "../sim/scenarios/builders.ts";
import { startSimulator } from "../sim/simulator.ts";
import { startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { type Replica, startTestBed } from "../testing/replicas.ts";
import { storedValue } from "../testing/state-file.ts";
import { crashPod, deliverySettled, seedShop, seedWorkload, startTestCluster, testClock } from "../testing/cluster.ts";
import { startCluster } from "../testing/replay.ts";
import { threadsOf } from "../testing/timing/conversation.ts";
import { deployment } from "../sim/stories/story.ts";

/**
 * Issue 29, "the first week with mon": what a platform engineer trips over, each through the real daemon or
 * the binary.
 */
const track = useCleanup();

describe("messages and routing", () => {
  test("1. a Pro route on namespaces gets an incident spanning namespaces when any of its findings is there", async () => {
    const shopHook = track(await startCaptureServer());
    const opsHook = track(await startCaptureServer());
    const cluster = track(
      await startTestCluster(
        {
          webhook: { url: `${shopHook.url}/mon`, routes: [{ namespaces: ["shop"] }] },
          alertmanager: { urls: [opsHook.url], routes: [{ namespaces: ["ops"] }] },
        },
        { cluster: "prod", edition: "pro" },
      ),
    );
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    // n3 also runs billing's ledger: the node's incident names billing's pod first (by key), then shop's.
    seedWorkload(sim, "billing", "ledger", ["n3"], clock.now());
    await cluster.settle();
    sim.patchStatus("v1", "Node", undefined, "n3", { conditions: [nodeReady("Unknown", clock.now())] });
    await cluster.settle();
    await deliverySettled(cluster.daemon);
    const told = shopHook.requests.map((r) => r.json());
    expect(told.map((b) => [b.action, b.incidentId])).toEqual([["announce", "Node//n3"]]);
    expect(told[0].findings.map((f: { object: { namespace?: string } }) => f.object.namespace)).toContain("billing");
    // The route on ops matches none of its findings.
    expect(opsHook.requests).toEqual([]);
  });

  test("2. unrelated crash loops printing a line every crash prints are two incidents, not one 'shared error'", async () => {
    const run = track(await startCluster({ nodes: 2 }));
    run.sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } });
    // Both print the simulator's default output: "Error: the process exited with status 1".
    run.sim.apply(deployment("a", "registry.example/a:crash", 1));
    run.sim.apply({ ...deployment("b", "registry.example/b:crash", 1), metadata: { namespace: "default", name: "b" } });
    await run.runTo(300, 1_000);
    const threads = [...threadsOf(run.told()).keys()].sort();
    expect(threads).toEqual(["Deployment/default/b", "Deployment/shop/a"]);
    for (const m of run.told()) expect(m.text).not.toContain("#");
  }, 120_000);

  test("3. a resolve says how long the failure lasted from its onset, and that it was told after its hold", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" }));
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    // On a whole second: the pod's times are written to the second, as the API server writes them, so an onset
    // read from them is this instant, not up to a second before it (which would round the durations up).
    await clock.advance(1_000 - (clock.now() % 1_000));
    const began = clock.now();
    sim.patchStatus("v1", "Pod", "shop", "web-abc12-p0", {
      phase: "Pending",
      startTime: new Date(began).toISOString(),
      containerStatuses: [
        {
          name: "web",
          image: "ghcr.io/shop/web:1.1",
          imageID: "",
          ready: false,
          restartCount: 0,
          state: { waiting: { reason: "ImagePullBackOff", message: 'Back-off pulling image "ghcr.io/shop/web:1.1"' } },
        },
      ],
    });
    await cluster.settle();
    await clock.advance(120_000);
    await cluster.settle();
    await clock.advance(30_000);
    sim.patchStatus(
      "v1",
      "Pod",
      "shop",
      "web-abc12-p0",
      runningStatus("web", "ghcr.io/shop/web:1.1", new Date(clock.now()).toISOString(), 0),
    );
    await cluster.settle();
    await deliverySettled(cluster.daemon);
    const [announce, resolve] = hook.requests.map((r) => r.json());
    expect(announce).toMatchObject({ action: "announce", reason: "ImagePullBackOff" });
    expect(resolve.text).toContain(
      "Was blamed on deployment shop/web (ImagePullBackOff); open 2 min 30 s; announced 2 min after it began, after its 2 min hold.",
    );
  });

  test("4. a template that leaves out the status emoji still sends a message that starts with it (spec 3.2)", async () => {
    const lines: string[] = [];
    const cluster = track(
      await startTestCluster(
        { stdout: { templates: { CrashLoopBackOff: "crash! {{.Message}}" } } },
        { cluster: "prod", edition: "pro", stdout: (text) => lines.push(text) },
      ),
    );
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    crashPod(sim, "shop", "web-abc12-p0", 3, clock.now());
    await cluster.settle();
    await deliverySettled(cluster.daemon);
    const told = lines.filter((l) => l.includes("crash!"));
    expect(told).toHaveLength(1);
    expect(told[0]).toStartWith("🟠 crash! deployment shop/web: CrashLoopBackOff in 1 pod [prod]");
  });
});

describe("Community and Pro, as a user chooses them", () => {
  test("7. the hourly budget and what waits for the overflow digest survive a restart (Pro, spec 6.3)", async () => {
    const hook = track(await startCaptureServer());
    const dataDir = mkdtempSync(join(tmpdir(), "mon-budget-"));
    const alert = { webhook: { url: `${hook.url}/mon`, hourlyBudget: 1 } };
    const sim = track(await startSimulator());
    const clock = testClock();
    const first = await startTestCluster(alert, { cluster: "prod", edition: "pro", dataDir, sim, clock });
    track({ stop: () => first.stopDaemon() });
    seedShop(sim, clock.now());
    seedWorkload(sim, "billing", "ledger", ["n1"], clock.now());
    seedWorkload(sim, "ops", "audit", ["n2"], clock.now());
    await first.settle();
    crashPod(sim, "shop", "web-abc12-p0", 3, clock.now());
    await first.settle();
    // The hour's one new conversation is spent: billing's crash loop waits for the overflow digest.
    crashPod(sim, "billing", "ledger-abc12-p0", 3, clock.now());
    await first.settle();
    await deliverySettled(first.daemon);
    expect(hook.requests.map((r) => r.json().incidentId)).toEqual(["Deployment/shop/web"]);
    await first.stopDaemon();
    await clock.advance(60_000);
    const second = await startTestCluster(alert, { cluster: "prod", edition: "pro", dataDir, sim, clock });
    track({ stop: () => second.stopDaemon() });
    await second.settle();
    // Still the same hour: a third new problem folds too, rather than opening a conversation.
    crashPod(sim, "ops", "audit-abc12-p0", 3, clock.now());
    await second.settle();
    await deliverySettled(second.daemon);
    const restored = hook.requests.map((r) => r.json()).find((b) => b.delivery === "restored summary");
    expect(restored.text).toContain(
      "• deployment billing/ledger: CrashLoopBackOff in 1 pod (medium), open 1 min — no thread at webhook: folded into the overflow digest by the hourly budget",
    );
    expect(restored.text).not.toMatch(/shop\/web.*no thread/);
    // Ten minutes after the first folded message, one overflow digest names both.
    await clock.advance(9 * 60_000);
    await second.settle();
    await deliverySettled(second.daemon);
    const bodies = hook.requests.map((r) => r.json());
    expect(bodies.filter((b) => b.action === "announce" && !b.delivery).map((b) => b.incidentId)).toEqual([
      "Deployment/shop/web",
    ]);
    const digests = bodies.filter((b) => b.reason === "OverflowDigest");
    expect(digests).toHaveLength(1);
    expect(digests[0].title).toBe("Overflow digest: 2 notifications held back by the hourly budget");
    expect([...digests[0].covers].sort()).toEqual(["Deployment/billing/ledger", "Deployment/ops/audit"]);
  });

  test("7. across a kill -9 of the leader and the standby's takeover, the hour's budget and the folded problem are kept", async () => {
    const bed = track(await startTestBed());
    const { sim, hook } = bed;
    seedShop(sim, Date.now());
    seedWorkload(sim, "billing", "ledger", ["n1"], Date.now());
    seedWorkload(sim, "ops", "audit", ["n2"], Date.now());
    // Open before mon starts: the startup summary names it, and summaries do not count toward the budget.
    crashPod(sim, "shop", "api-abc12-p0", 5, Date.now());
    const files = bed.installation("licensed");
    const replicas: Replica[] = [];
    const until = (condition: () => boolean | Promise<boolean>, what: string) =>
      waitUntil(condition, what, 40_000).catch((error: Error) => {
        throw new Error(`${error.message}\n${replicas.map((r) => `--- ${r.name}\n${r.log.join("")}`).join("\n")}`);
      });
    const announced = () => hook.requests.map((r) => r.json()).filter((b) => b.action === "announce" && !b.delivery);
    const leader = await bed.replica(files, "mon-0", { hourlyBudget: 1 });
    replicas.push(leader);
    await until(() => hook.requests.some((r) => r.json().delivery === "startup summary"), "the startup summary");
    const standby = await bed.replica(files, "mon-1", { hourlyBudget: 1 });
    replicas.push(standby);

    crashPod(sim, "shop", "web-abc12-p0", 5, Date.now());
    await until(() => announced().some((b) => b.incidentId === "Deployment/shop/web"), "the hour's one announcement");
    crashPod(sim, "billing", "ledger-abc12-p0", 5, Date.now());
    // Killed once the fold and the incident are in the state file, as they are before the next pass.
    await until(async () => {
      const budget = (await storedValue(files.data, "budget:webhook")) as { folded?: string[] } | undefined;
      const kept = JSON.stringify((await storedValue(files.data, "lifecycle")) ?? "");
      return Boolean(budget?.folded?.includes("Deployment/billing/ledger")) && kept.includes("billing/ledger");
    }, "the folded announcement in the state file");
    leader.child.kill("SIGKILL");
    await leader.exited();

    await until(() => standby.leads(), "the standby leads");
    await until(() => hook.requests.some((r) => r.json().delivery === "restored summary"), "the restored summary");
    const restored = hook.requests.map((r) => r.json()).find((b) => b.delivery === "restored summary");
    expect(restored.text).toMatch(
      /deployment billing\/ledger: .* — no thread at webhook: folded into the overflow digest by the hourly budget/,
    );
    // Once the new leader's first pass is done (what began meanwhile is in a summary), it counts the hour the
    // old one spent: another new problem folds, nothing is announced.
    await until(async () => {
      const text = await (await fetch(`${standby.health}/metrics`)).text();
      return Number(/mon_pipeline_decision_lag_seconds_count (\d+)/.exec(text)?.[1] ?? 0) > 0;
    }, "the new leader's first pass");
    crashPod(sim, "ops", "audit-abc12-p0", 5, Date.now());
    await until(
      () => standby.log.join("").includes("announce Deployment/ops/audit goes into the overflow digest"),
      "the new leader to fold the next new problem",
    );
    expect(announced().map((b) => b.incidentId)).toEqual(["Deployment/shop/web"]);
    // The fold is written to the state file right after it is decided.
    const overflow = async () =>
      ((await storedValue(files.data, "budget:webhook")) as { overflow?: { incidents: string[] } } | undefined)
        ?.overflow?.incidents ?? [];
    await until(async () => (await overflow()).length === 2, "the second fold in the state file");
    expect((await overflow()).sort()).toEqual(["Deployment/billing/ledger", "Deployment/ops/audit"]);
  }, 150_000);

  test("9. a Community install with a data directory sends telemetry (spec 8), once in 7 days across restarts", async () => {
    const home = track(await startCaptureServer());
    home.setDefault({ status: 202, body: "" });
    const beats = () => home.requests.filter((r) => r.path === "/telemetry/heartbeat");
    const sim = track(await startSimulator());
    const clock = testClock();
    const run = async (dataDir: string) => {
      const cluster = await startTestCluster(
        { webhook: { url: "http://127.0.0.1:9/mon" } },
        {
          cluster: "prod",
          dataDir,
          sim,
          clock,
          build: "release",
          config: { upgrader: { disableUpdateCheck: true } },
          env: { MON_TELEMETRY_URL: home.url, CI: "" },
        },
      );
      track({ stop: () => cluster.stopDaemon() });
      await cluster.settle();
      await clock.advance(60_000);
      await cluster.settle();
      return cluster;
    };
    const dataDir = mkdtempSync(join(tmpdir(), "mon-community-"));
    const first = await run(dataDir);
    expect(first.daemon.edition()).toBe("community");
    await waitUntil(() => beats().length === 1, "the first heartbeat");
    expect(Object.keys(beats()[0]!.json()).sort()).toEqual(["cluster_uuid", "mon_version"]);
    await first.stopDaemon();
    // Restarted the same day: the mark in the data directory holds the next one back.
    const second = await run(dataDir);
    await clock.advance(10 * 60_000);
    await deliverySettled(second.daemon);
    await second.stopDaemon();
    expect(beats()).toHaveLength(1);
    // Seven days later the next process sends again.
    await clock.advance(7 * 86_400_000);
    await run(dataDir);
    await waitUntil(() => beats().length === 2, "the heartbeat 7 days later");
  });

  test("10. auditLog.output may be relative: entries go under the working directory, its directory made", async () => {
    const hook = track(await startCaptureServer());
    const dir = mkdtempSync(join(tmpdir(), "mon-cwd-"));
    const before = process.cwd();
    // mon resolves the path once, at start: the working directory matters only then.
    process.chdir(dir);
    const cluster = await startTestCluster(
      { webhook: { url: `${hook.url}/mon` } },
      { cluster: "prod", edition: "pro", config: { auditLog: { output: "audit/mon.jsonl" } } },
    ).finally(() => process.chdir(before));
    track(cluster);
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    crashPod(sim, "shop", "web-abc12-p0", 3, clock.now());
    await cluster.settle();
    const file = join(dir, "audit", "mon.jsonl");
    await waitUntil(() => existsSync(file) && readFileSync(file, "utf8").includes("Deployment/shop/web"), "the entry");
    const entries = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(entries.map((e) => [e.decision, e.incidentId])).toContainEqual(["announced", "Deployment/shop/web"]);
  });
});

describe("install, operate, undo", () => {
  test("12. the health server listens on loopback when mon runs with a kubeconfig; healthCheck.address opens it", async () => {
    const bed = track(await startTestBed());
    const files = bed.installation("unlicensed");
    const local = await bed.replica(files, "mon-0");
    await waitUntil(() => local.log.join("").includes("health server listening"), "the health server", 30_000);
    expect(local.log.join("")).toMatch(
      /health server listening on 127\.0\.0\.1:\d+ \(loopback only: mon runs with a kubeconfig; healthCheck\.address opens it\)/,
    );
    expect((await fetch(`${local.health}/healthz`)).status).toBe(200);
    const open = await bed.replica(files, "mon-1", { healthAddress: "0.0.0.0" });
    await waitUntil(() => open.log.join("").includes("health server listening"), "the health server", 30_000);
    expect(open.log.join("")).toMatch(/health server listening on 0\.0\.0\.0:\d+\n/);
  });
});
