import { afterAll, expect } from "bun:test";
import { realKube, realKubeTest } from "../testing/real-kube.ts";
import { type RealRun, startRealDaemon } from "../testing/real-run.ts";
import { watchFor } from "../testing/real-watch.ts";
import { startTcpProxy, type TcpProxy } from "../testing/tcp-proxy.ts";

/**
 * Watches on a real kube-apiserver v1.32 (issue 40): it sends no BOOKMARK at all on a kind that has not changed
 * since the watch began, so a rule built on a bookmark every minute cried "could not watch" on every quiet
 * cluster. mon checks a silent watch instead (kube/watch-check.ts): it must never take a quiet watch for a
 * stalled one, and still find a stream held by a proxy within 90 s.
 */
const realTest = realKubeTest("mon's watches on a real kube-apiserver");
const runs: RealRun[] = [];
let proxy: TcpProxy | undefined;
afterAll(async () => {
  for (const run of runs) await run.stop();
  await proxy?.close();
});

realTest(
  "on a healthy real API server whose quiet kinds get no bookmark, 150 s pass without a stall or a blind notice; behind a proxy that holds every stream, the stall is found within 90 s",
  async () => {
    const kube = await realKube();
    const port = Number(new URL(kube.url).port);
    proxy = await startTcpProxy({ host: "127.0.0.1", port });
    const direct = await startRealDaemon({ kubeconfigText: kube.kubeconfigText, clusterName: "direct" });
    runs.push(direct);
    const proxied = await startRealDaemon({
      kubeconfigText: kube.kubeconfigText.replace(`server: ${kube.url}`, `server: https://127.0.0.1:${proxy.port}`),
      clusterName: "proxied",
    });
    runs.push(proxied);
    // Quiet kinds are the rule here: no bookmark comes on them (checked below on one of them).
    const heldAt = Date.now();
    proxy.hold(true);
    let foundAfter: number | undefined;
    while (Date.now() - heldAt < 150_000) {
      if (foundAfter === undefined && (await proxied.stalls()) > 0) foundAfter = (Date.now() - heldAt) / 1000;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    console.log(`real control plane: a stream held by a proxy was found ${foundAfter} s after the hold`);
    expect(foundAfter).toBeDefined();
    expect(foundAfter!).toBeLessThanOrEqual(90);
    expect(proxied.daemon.health.report().components.caches?.state).not.toBe("ok");
    // The direct daemon saw the same 150 s: nothing stalled, nothing told about its own sight.
    expect(await direct.stalls()).toBe(0);
    expect(direct.daemon.health.report().unwatched).toBeUndefined();
    expect(direct.told().filter((m) => m.delivery === "notice")).toEqual([]);
  },
  240_000,
);

realTest(
  "a quiet kind's watch on kube-apiserver v1.32 gets no BOOKMARK in 70 s; one that changed gets one a minute after the watch began",
  async () => {
    const kube = await realKube();
    const quiet = watchFor(kube, "/api/v1/persistentvolumes", 70_000);
    const busy = watchFor(kube, "/api/v1/namespaces", 70_000);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    kube.kubectl(["create", "namespace", `bookmark-${Date.now()}`]);
    const [q, b] = await Promise.all([quiet, busy]);
    expect(q.filter((e) => e.type === "BOOKMARK")).toEqual([]);
    const marks = b.filter((e) => e.type === "BOOKMARK");
    expect(marks.length).toBeGreaterThanOrEqual(1);
    expect(marks[0]!.at).toBeGreaterThanOrEqual(55);
    expect(marks[0]!.at).toBeLessThanOrEqual(66);
  },
  120_000,
);
