import { afterEach, describe, expect, test } from "bun:test";
import { startSimulator, type Simulator } from "../sim/simulator.ts";
import { type CaptureServer, startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { crashPod, seedShop, seedWorkload } from "../testing/cluster.ts";
import { simRequest } from "../testing/sim-client.ts";
import { type LicenseServer, startLicenseServer } from "../testing/license-server.ts";
import { startTcpProxy } from "../testing/tcp-proxy.ts";
import { createInstallation, type Installation, type Replica, startReplica } from "../testing/replicas.ts";

let sim: Simulator | undefined;
let hook: CaptureServer | undefined;
let licenses: LicenseServer | undefined;
const replicas: Replica[] = [];
afterEach(async () => {
  for (const r of replicas.splice(0)) r.child.kill("SIGKILL");
  await hook?.close();
  await licenses?.close();
  await sim?.stop();
  sim = hook = licenses = undefined;
});

/** An installation on the test's simulator, webhook and license server. */
function installation(key: string): Installation {
  return createInstallation(sim!, { webhookUrl: `${hook!.url}/mon`, licenseUrl: licenses!.url, licenseKey: key });
}

/** Starts a replica; the test kills it at the end. */
async function replica(name: string, files: Installation, options: { kubeconfig?: string } = {}): Promise<Replica> {
  const r = await startReplica(files, name, options);
  replicas.push(r);
  return r;
}

/** waitUntil, with every replica's log in the failure message. */
async function until(condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
  try {
    await waitUntil(condition, what, timeoutMs);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${logs()}`);
  }
}

/** The pod's container runs and is ready again (a fixed crash loop). */
function healPod(name: string): void {
  const pod = sim!.store.get(sim!.typeOf("", "v1", "pods"), "shop", name);
  const c = pod.spec.containers[0];
  sim!.patchStatus("v1", "Pod", "shop", name, {
    phase: "Running",
    conditions: [{ type: "Ready", status: "True", lastTransitionTime: new Date().toISOString() }],
    containerStatuses: [
      {
        name: c.name,
        image: c.image,
        imageID: "",
        ready: true,
        started: true,
        restartCount: 6,
        state: { running: { startedAt: new Date().toISOString() } },
      },
    ],
  });
}

const logs = () => replicas.map((r) => `--- ${r.name}\n${r.log.join("")}`).join("\n");
const announces = (incident: string) =>
  hook!.requests.filter((r) => r.json().action === "announce" && r.json().incidentId === incident);
const lease = async () =>
  (await simRequest(sim!, "GET", "/apis/coordination.k8s.io/v1/namespaces/mon/leases/mon-leader")).json as {
    spec?: { holderIdentity?: string; leaseTransitions?: number };
  };

/** The simulator with the shop (its web Deployment crash-looping), the webhook, the license server, a Pro (or Community) installation. */
async function shop(edition: "pro" | "community" = "pro"): Promise<Installation> {
  sim = await startSimulator();
  sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "mon" } });
  hook = await startCaptureServer();
  licenses = await startLicenseServer(() => Date.now());
  const files = installation(edition === "pro" ? licenses.addLicense() : "");
  seedShop(sim, Date.now());
  crashPod(sim, "shop", "web-abc12-p0", 5, Date.now());
  return files;
}

/**
 * A Pro installation with two replicas on the shop cluster, one crash loop open before they start: resolves
 * once one leads and its startup summary (naming that crash loop) arrived.
 */
async function twoReplicas(): Promise<{ leader: Replica; standby: Replica }> {
  const files = await shop();
  const a = await replica("mon-a", files);
  const b = await replica("mon-b", files);
  await until(() => a.leads() || b.leads(), "a leader", 20_000);
  await until(() => summaries().length === 1, "the startup summary", 20_000);
  return a.leads() ? { leader: a, standby: b } : { leader: b, standby: a };
}

const summaries = () => hook!.requests.filter((r) => r.json().delivery === "startup summary");

describe("leadership: one leader, a warm standby (spec 1.9, 3.3, 4.1)", () => {
  test("two replicas: exactly one announces; SIGTERM hands the Lease over at once and the new leader repeats nothing", async () => {
    const { leader, standby } = await twoReplicas();
    expect(summaries()[0]!.json().covers).toEqual(["Deployment/shop/web"]);

    // A failure after the start is announced once, by the leader alone.
    crashPod(sim!, "shop", "api-abc12-p0", 5, Date.now());
    await until(() => announces("Deployment/shop/api").length === 1, "the crash loop's announce", 20_000);
    expect(standby.leads()).toBe(false);
    // The standby is live and available (a rolling update proceeds) but not ready; /health shows the lock.
    const status = async (r: Replica, path: string) => (await fetch(`${r.health}${path}`)).status;
    expect([await status(standby, "/healthz"), await status(standby, "/availabilityz")]).toEqual([200, 200]);
    expect(await status(standby, "/readyz")).toBe(503);
    expect(await status(leader, "/readyz")).toBe(200);
    // A standby that lost the race to create the Lease (409) learns the holder at its next read (2 s).
    const healthOf = async (r: Replica) => await (await fetch(`${r.health}/health`)).json();
    await waitUntil(async () => (await healthOf(standby)).lock?.holder === leader.name, "the standby sees the holder");
    // A Pro standby's caches are warm: listed and watched while it waits.
    await waitUntil(async () => (await healthOf(standby)).components.caches?.state === "ok", "warm standby caches");
    const standbyHealth = await healthOf(standby);
    expect(standbyHealth).toMatchObject({
      stateLock: "waiting",
      ready: false,
      lock: { lease: "mon/mon-leader", identity: standby.name, holder: leader.name },
      session: { pod: standby.name, podUid: `uid-${standby.name}`, node: "worker-1" },
      components: { leadership: { state: "pending", required: true } },
    });
    expect(await (await fetch(`${leader.health}/health`)).json()).toMatchObject({
      stateLock: "held",
      lock: { identity: leader.name, holder: leader.name, term: 0 },
    });
    const metric = async (r: Replica, name: string) =>
      Number(new RegExp(`^${name} (\\d+)$`, "m").exec(await (await fetch(`${r.health}/metrics`)).text())?.[1]);
    expect(await metric(leader, "mon_leadership_acquisitions_total")).toBe(1);
    expect(await metric(standby, "mon_leadership_acquisitions_total")).toBe(0);

    leader.child.kill("SIGTERM");
    expect(await leader.exited()).toBe(0);
    // Released, not expired: the standby watches the Lease and leads at once (the issue asks under 2 s;
    // a lease that had to expire would take 15 s).
    const exitedAt = Date.now();
    await until(() => standby.leads(), "the standby leads", 10_000);
    expect(Date.now() - exitedAt).toBeLessThan(2_000);
    expect((await lease()).spec?.holderIdentity).toBe(standby.name);
    await until(() => standby.log.join("").includes("delivering to"), "the new leader's components", 20_000);
    expect(await metric(standby, "mon_leader_takeovers_total")).toBe(1);
    // The new leader continues from the state the old one left: no summary, no announce again; the fix of the
    // crash loop resolves the conversation the old leader opened.
    const startups = () => hook!.requests.filter((r) => r.json().reason === "Startup");
    await until(() => startups().length === 2, "the new leader's startup message", 20_000);
    expect(standby.log.join("")).toContain("2 incident(s) continue from the previous process");
    // One restored-incident summary (spec 6) names the threads that continue; nothing is announced again.
    const restored = () => hook!.requests.map((r) => r.json()).filter((b) => b.delivery === "restored summary");
    await until(() => restored().length === 1, "the restored-incident summary", 20_000);
    expect(restored()[0].text.split("\n")[0]).toMatch(/^🟠 Restored after a restart: 2 problems still open \[/);
    expect([...restored()[0].covers].sort()).toEqual(["Deployment/shop/api", "Deployment/shop/web"]);
    // Each problem with its root's reason, in the order of covers: a receiver routes them without reading the text.
    expect(restored()[0].problems.map((p: { incidentId: string }) => p.incidentId)).toEqual(restored()[0].covers);
    expect(restored()[0].problems.every((p: { reason: string }) => p.reason === "CrashLoopBackOff")).toBe(true);
    healPod("api-abc12-p0");
    await until(() => hook!.requests.some((r) => r.json().action === "resolve"), "the resolve", 20_000);
    const resolve = hook!.requests.find((r) => r.json().action === "resolve")!.json();
    expect(resolve.incidentId).toBe("Deployment/shop/api");
    expect(summaries()).toHaveLength(1);
    expect(announces("Deployment/shop/api")).toHaveLength(1);
  }, 90_000);

  test("Community: a second replica waits with cold caches (a warm standby is Pro), then lists and leads on SIGTERM", async () => {
    const files = await shop("community");
    const a = await replica("mon-a", files);
    await until(() => a.leads() && summaries().length === 1, "mon-a leads and sent its startup summary", 20_000);
    const b = await replica("mon-b", files);
    await until(() => b.log.join("").includes("caches stay cold"), "mon-b waits cold", 20_000);
    const healthOf = async (r: Replica) => await (await fetch(`${r.health}/health`)).json();
    await waitUntil(async () => (await healthOf(b)).lock?.holder === a.name, "mon-b sees the holder");
    // Listing nothing while it waits: its caches are not synced, the leader's are.
    expect((await healthOf(b)).components.caches).toMatchObject({ state: "pending", reason: "cache_sync_pending" });
    expect((await healthOf(a)).components.caches).toMatchObject({ state: "ok" });

    a.child.kill("SIGTERM");
    expect(await a.exited()).toBe(0);
    await until(() => b.leads(), "mon-b leads", 10_000);
    // It lists the cluster now (its state was in memory: what is open comes in its startup summary), and
    // detects what fails from here on.
    await until(() => summaries().length === 2, "mon-b's startup summary", 30_000);
    crashPod(sim!, "shop", "api-abc12-p0", 5, Date.now());
    await until(() => announces("Deployment/shop/api").length === 1, "the new leader's announce", 30_000);
    expect((await healthOf(b)).components.caches).toMatchObject({ state: "ok" });
  }, 90_000);

  test("kill -9 of the leader with a message in the outbox: the standby leads within the lease, delivers it once, announces nothing again, and tells what began while nobody led as news", async () => {
    const { leader, standby } = await twoReplicas();

    // The provider is down when the crash loop is announced: the announce waits in the outbox.
    hook!.setDefault({ status: 503, body: "down" });
    crashPod(sim!, "shop", "api-abc12-p0", 5, Date.now());
    await until(() => announces("Deployment/shop/api").length >= 1, "a first attempt", 20_000);
    leader.child.kill("SIGKILL");
    await leader.exited();
    // While nobody leads (the Lease has yet to expire), a crash loop begins: the warm standby watched it begin.
    seedWorkload(sim!, "shop", "search", ["n2"], Date.now());
    crashPod(sim!, "shop", "search-abc12-p0", 5, Date.now());
    hook!.setDefault({ status: 200, body: "ok" });
    const attempts = hook!.requests.length;

    // Within the lease duration (15 s) and a retry period (2 s), with room for a busy machine.
    await until(() => standby.leads(), "the standby leads", 40_000);
    await until(
      () => hook!.requests.slice(attempts).some((r) => r.json().incidentId === "Deployment/shop/api"),
      "the announce from the outbox",
      20_000,
    );
    expect(standby.log.join("")).toMatch(/resumed \d+ message\(s\) left in the outbox/);
    // The new leader's own startup message arrives after the resumed one; by then nothing else is sent again.
    await until(
      () => hook!.requests.filter((r) => r.json().reason === "Startup").length === 2,
      "a startup message",
      20_000,
    );
    const delivered = hook!.requests.slice(attempts).filter((r) => r.json().incidentId === "Deployment/shop/api");
    expect(delivered.map((r) => r.json().action)).toEqual(["announce"]);
    // The crash loop begun while nobody led is news, its own announce — not "present at startup" (spec 1.7).
    await until(() => announces("Deployment/shop/search").length === 1, "search's announce", 30_000);
    expect(summaries()).toHaveLength(1);
    expect((await lease()).spec).toMatchObject({ holderIdentity: standby.name, leaseTransitions: 1 });
  }, 120_000);

  test("a leader cut off from the API server stops leading before the lease can expire and stands by without exiting; the standby delivers its outbox; the first leads again, repeating nothing", async () => {
    const files = await shop();
    const tokenA = sim!.addUser("mon-a", [{ groups: ["*"], resources: ["*"], verbs: ["*"] }]);
    const a = await replica("mon-a", files, { kubeconfig: sim!.kubeconfigFor(tokenA) });
    await until(() => a.leads(), "mon-a leads", 20_000);
    const b = await replica("mon-b", files);
    await until(() => summaries().length === 1, "the startup summary", 20_000);

    // The provider goes down with an announce in the leader's outbox; then the leader loses the API server.
    hook!.setDefault({ status: 503, body: "down" });
    crashPod(sim!, "shop", "api-abc12-p0", 5, Date.now());
    await until(() => announces("Deployment/shop/api").length >= 1, "a first attempt", 20_000);
    sim!.setTokens([sim!.token]);
    // It steps down at its renew deadline (10 s) — before the lease expires for mon-b (15 s) — and exits.
    let lostBeforeTakeover: boolean | undefined;
    await until(
      () => {
        if (b.leads() && lostBeforeTakeover === undefined)
          lostBeforeTakeover = a.log.join("").includes("leadership lost");
        return b.leads();
      },
      "mon-b leads",
      60_000,
    );
    expect(lostBeforeTakeover).toBe(true);
    // It does not exit (issue 53): it stands by, live and not ready, and campaigns again.
    await until(() => a.log.join("").includes("standing by"), "mon-a stands by", 20_000);
    expect((await fetch(`${a.health}/healthz`)).status).toBe(200);
    expect((await fetch(`${a.health}/readyz`)).status).toBe(503);
    expect(await (await fetch(`${a.health}/health`)).text()).toContain("leadership_lost");
    expect(a.child.exitCode).toBeNull();
    hook!.setDefault({ status: 200, body: "ok" });
    const attempts = hook!.requests.length;
    await until(
      () => hook!.requests.slice(attempts).some((r) => r.json().incidentId === "Deployment/shop/api"),
      "the announce from the outbox",
      30_000,
    );
    expect(
      hook!.requests
        .slice(attempts)
        .filter((r) => r.json().action === "announce" && r.json().incidentId === "Deployment/shop/api"),
    ).toHaveLength(1);
    // mon-a's credentials back, it is mon-b's standby; mon-b stopped (a rollout), mon-a leads again from the
    // state mon-b kept and tells nothing twice. (A SIGKILL just after a delivery may leave it in the outbox, to
    // be delivered again under the same webhook-id: at least once, as a kill allows.)
    sim!.setTokens([sim!.token, tokenA]);
    b.child.kill("SIGTERM");
    await until(() => a.leading() && a.terms() === 2, "mon-a leads again", 60_000);
    await until(() => a.log.join("").includes("state reloaded"), "mon-a's state reloaded", 10_000);
    // It leads for real: a new crash loop is announced, once; nothing told before is told again.
    seedWorkload(sim!, "shop", "search", ["n2"], Date.now());
    crashPod(sim!, "shop", "search-abc12-p0", 5, Date.now());
    // Its caches were warm all along: a crash loop it watched begin is news, never in a startup summary.
    const search = () =>
      hook!.requests.filter((r) =>
        [r.json().incidentId, ...(r.json().covers ?? [])].includes("Deployment/shop/search"),
      );
    await until(() => search().length >= 1, "search's announce by mon-a", 60_000);
    expect(search().map((r) => r.json().delivery ?? "own thread")).toEqual(["own thread"]);
    expect(
      hook!.requests
        .slice(attempts)
        .filter((r) => r.json().action === "announce" && r.json().incidentId === "Deployment/shop/api"),
    ).toHaveLength(1);
    expect(a.child.exitCode).toBeNull();
  }, 180_000);
});

describe("leadership through an API server outage (issue 53)", () => {
  /** One replica whose kubeconfig goes through a TCP proxy in front of the simulator, the test's to cut. */
  async function behindProxy(
    files: Installation,
  ): Promise<{ r: Replica; cut(): Promise<void>; mend(): Promise<void>; hang(on: boolean): void }> {
    const url = new URL(sim!.kubeconfig().match(/server: (\S+)/)![1]!);
    const target = { host: url.hostname, port: Number(url.port) };
    let proxy = await startTcpProxy(target);
    const port = proxy.port;
    const r = await replica("mon-a", files, { kubeconfig: sim!.kubeconfig().replace(`:${url.port}`, `:${port}`) });
    return {
      r,
      // Connections refused, as while kube-apiserver is down.
      cut: () => proxy.close(),
      mend: async () => {
        proxy = await startTcpProxy(target, { host: "127.0.0.1", port });
      },
      // Connections open, nothing answered, as while etcd is down.
      hang: (on) => proxy.hold(on),
    };
  }

  test("two replicas, the API server down past a minute: the one that led last pages once that it cannot be reached, the standby says nothing, the same thread resolves when it answers, and nothing else is told twice", async () => {
    const files = await shop();
    const url = new URL(sim!.kubeconfig().match(/server: (\S+)/)![1]!);
    const target = { host: url.hostname, port: Number(url.port) };
    let proxy = await startTcpProxy(target);
    const port = proxy.port;
    const kubeconfig = sim!.kubeconfig().replace(`:${url.port}`, `:${port}`);
    const a = await replica("mon-a", files, { kubeconfig });
    const b = await replica("mon-b", files, { kubeconfig });
    await until(() => (a.leads() || b.leads()) && summaries().length === 1, "a leader and its summary", 20_000);
    const [leader, standby] = a.leads() ? [a, b] : [b, a];
    const cutAt = Date.now();
    await proxy.close();
    const outage = () => hook!.requests.filter((r) => String(r.json().incidentId).startsWith("api-unreachable@"));
    await until(() => outage().length === 1, "the outage told", 120_000);
    const told = outage()[0]!.json();
    expect(told).toMatchObject({ action: "announce", mode: "page", tier: "critical", reason: "APIServerUnreachable" });
    expect(told.incidentId).toBe(`api-unreachable@${(await lease()).spec?.leaseTransitions ?? 0}`);
    expect(told.text).toContain("is unreachable since");
    expect(told.nextSteps[0]).toContain("/readyz");
    // A minute after the last answer, not before; by the replica that led, never by the standby.
    expect(Date.parse(told.at) - cutAt).toBeGreaterThanOrEqual(55_000);
    expect(leader.log.join("")).toContain("telling the providers");
    expect(standby.log.join("")).not.toContain("telling the providers");
    expect(leader.child.exitCode).toBeNull();
    expect(standby.child.exitCode).toBeNull();
    proxy = await startTcpProxy(target, { host: "127.0.0.1", port });
    await until(() => outage().length === 2, "the outage resolved", 60_000);
    expect(outage()[1]!.json()).toMatchObject({ action: "resolve", incidentId: told.incidentId });
    expect(outage()[1]!.json().text).toContain("answers again");
    // A crash loop begun as the server answers again is told once, as news, by whichever replica leads the next
    // term (a race of their election rounds): the one that led goes on, the other watched it begin too.
    crashPod(sim!, "shop", "api-abc12-p0", 5, Date.now());
    await until(() => announces("Deployment/shop/api").length === 1, "the crash loop after the outage", 60_000);
    expect(outage()).toHaveLength(2);
    expect(summaries()).toHaveLength(1);
    expect(announces("Deployment/shop/web")).toHaveLength(0);
    await proxy.close();
  }, 240_000);

  for (const fault of ["refused", "hung"] as const) {
    test(`the API server ${fault === "refused" ? "down (refused)" : "hanging (etcd down)"} past the renew deadline: the one replica never exits, stands by, leads again with what it kept, tells nothing twice and what began meanwhile once`, async () => {
      const files = await shop("community");
      const api = await behindProxy(files);
      const a = api.r;
      await until(() => a.leading() && summaries().length === 1, "mon-a leads and sums up", 20_000);
      if (fault === "refused") await api.cut();
      else api.hang(true);
      await until(() => a.log.join("").includes("standing by"), "mon-a stands by", 30_000);
      // Nobody leads now; meanwhile a crash loop begins.
      crashPod(sim!, "shop", "api-abc12-p0", 5, Date.now());
      await until(() => a.log.join("").includes("leader election: "), "mon-a campaigns", 30_000);
      expect(a.child.exitCode).toBeNull();
      expect((await fetch(`${a.health}/healthz`)).status).toBe(200);
      if (fault === "refused") await api.mend();
      else api.hang(false);
      await until(() => a.leading() && a.log.join("").includes("leading again"), "mon-a leads again", 60_000);
      expect(a.log.join("")).toContain("leading again (term 1)");
      await until(() => announces("Deployment/shop/api").length === 1, "the crash loop begun in the outage", 60_000);
      // The crash loop told before the outage is not told again, in no summary either.
      expect(summaries()).toHaveLength(1);
      expect(announces("Deployment/shop/web")).toHaveLength(0);
      expect(a.child.exitCode).toBeNull();
    }, 180_000);
  }
});
