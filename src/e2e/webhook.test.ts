import { word } from "../testing/words.ts";
import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeReady, readyNode, runningPod, runningStatus } from "../sim/scenarios/builders.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import {
  crashPod,
  deploymentUnavailable,
  seedShop,
  seedWorkload,
  startTestCluster,
  healPod,
} from "../testing/cluster.ts";
import { servingCertificate } from "../sim/pki.ts";
import { type Simulator, startSimulator } from "../sim/simulator.ts";
import { VERSION } from "../version.ts";

const secrets = mkdtempSync(join(tmpdir(), "mon-webhook-"));
const SECRET = `whsec_${Buffer.from("a-signing-secret-of-32-bytes....").toString("base64")}`;
writeFileSync(join(secrets, "signing"), `${SECRET}\n`);

const track = useCleanup();

/** A ClusterIP Service `shop/<name>` selecting `app: <name>`, with one ready endpoint at `ip` (it serves). */
function servingService(sim: Simulator, name: string, ip: string, createdAt?: number): void {
  sim.apply({
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      namespace: "shop",
      name,
      ...(createdAt !== undefined ? { creationTimestamp: new Date(createdAt).toISOString() } : {}),
    },
    spec: { type: "ClusterIP", selector: { app: name }, ports: [{ port: 80 }] },
  });
  sim.apply({
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { namespace: "shop", name: `${name}-x1`, labels: { "kubernetes.io/service-name": name } },
    addressType: "IPv4",
    endpoints: [{ addresses: [ip], conditions: { ready: true } }],
  });
}

describe("webhook: the daemon against the simulator", () => {
  test("announce and resolve carry the documented body, signed with Standard Webhooks headers", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(
      await startTestCluster(
        { webhook: { url: `${hook.url}/mon`, signingSecret: `\${file:${join(secrets, "signing")}}` } },
        { cluster: "prod-eu1" },
      ),
    );
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    sim.setLogs(
      "shop",
      "api-abc12-p0",
      "api",
      "starting api 1.0\nconnecting to postgres://api:hunter2@10.96.0.9:5432/orders\npanic: cannot connect to db: connection refused\ngoroutine 1 [running]:\n",
      true,
    );
    crashPod(sim, "shop", "api-abc12-p0", 4, clock.now(), "panic: cannot connect to db");
    await cluster.settle();
    const [request] = await hook.waitFor(1);
    const body = request!.json();
    expect(request!.method).toBe("POST");
    expect(request!.path).toBe("/mon");
    expect(body).toMatchObject({
      version: "1",
      action: "announce",
      incidentId: "Deployment/shop/api",
      dedupKey: "mon-prod-eu1-deployment-shop-api-notify",
      cluster: "prod-eu1",
      root: { kind: "Deployment", namespace: "shop", name: "api" },
      tier: "medium",
      mode: "notify",
      reason: "CrashLoopBackOff",
      news: [],
    });
    expect(body.text).toStartWith("🟠 deployment shop/api: CrashLoopBackOff in 1 pod [prod-eu1]");
    expect(body.findings).toEqual([
      expect.objectContaining({
        reason: "CrashLoopBackOff",
        object: { kind: "Pod", namespace: "shop", name: "api-abc12-p0" },
        container: "api",
        tier: "medium",
        evidence: expect.objectContaining({
          container: "api",
          restarts: "4",
          "exit code": "1 (Error)",
          "last output": "panic: cannot connect to db",
          image: "ghcr.io/shop/api:1.0",
          // The crashed instance's log (pods/log, previous=true), credentials removed, read before the announcement.
          log: "starting api 1.0 ⏎ connecting to postgres://api:[redacted]@10.96.0.9:5432/orders ⏎ panic: cannot connect to db: connection refused",
        }),
      }),
    ]);
    // Standard Webhooks: HMAC-SHA256 over "<id>.<timestamp>.<body>" with the base64-decoded secret.
    const id = String(request!.headers["webhook-id"]);
    const timestamp = String(request!.headers["webhook-timestamp"]);
    const expected = createHmac("sha256", Buffer.from(SECRET.slice(6), "base64"))
      .update(`${id}.${timestamp}.${request!.body}`)
      .digest("base64");
    expect(request!.headers["webhook-signature"]).toBe(`v1,${expected}`);
    expect(Number(timestamp)).toBe(Math.floor(clock.now() / 1000));

    healPod(sim, "shop", "api-abc12-p0", 5, clock.now());
    await cluster.settle();
    const resolved = (await hook.waitFor(2))[1]!.json();
    expect(resolved).toMatchObject({ action: "resolve", incidentId: "Deployment/shop/api", dedupKey: body.dedupKey });
    expect(resolved.text).toStartWith(
      "✅ Resolved: deployment shop/api [prod-eu1]\nNow: 2/2 replicas available.\nWas blamed on deployment shop/api (CrashLoopBackOff)",
    );
    expect(resolved.messageId).not.toBe(body.messageId);
  });

  test("an incident that opens and resolves while its announcement waits for a retry is told once, as one combined message", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }));
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    hook.queue({ status: 502, body: "bad gateway" });
    crashPod(sim, "shop", "web-abc12-p0", 3, clock.now());
    await cluster.settle();
    await hook.waitFor(1);
    await waitUntil(() => cluster!.daemon.delivery.depth("webhook") === 1, "the announcement to wait for its retry");
    healPod(sim, "shop", "web-abc12-p0", 4, clock.now());
    await cluster.settle();
    await clock.advance(1_200);
    await hook.waitFor(2);
    await waitUntil(() => cluster!.daemon.delivery.depth("webhook") === 0, "the queue to empty");
    expect(hook.requests.map((r) => r.json().action)).toEqual(["announce", "opened_resolved"]);
    expect(hook.requests[1]!.json().text).toStartWith(
      "✅ Opened and resolved: deployment shop/web: CrashLoopBackOff in 1 pod",
    );
  });

  test("problems already open at startup come as one startup summary; what fails later is announced on its own", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" }));
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    crashPod(sim, "shop", "api-abc12-p0", 9, clock.now());
    crashPod(sim, "shop", "web-abc12-p0", 9, clock.now());
    await cluster.settle();
    const [summary] = await hook.waitFor(1);
    const body = summary!.json();
    expect(body).toMatchObject({
      action: "announce",
      delivery: "startup summary",
      covers: ["Deployment/shop/api", "Deployment/shop/web"],
      root: { kind: "Cluster", name: "prod" },
    });
    expect(body.text.split("\n")).toEqual([
      "🟠 Startup summary: 2 problems already open [prod]",
      "These were failing when mon started; each is updated and resolved from here, new problems are announced on their own.",
      "• deployment shop/api: CrashLoopBackOff in 1 pod (medium)",
      "• deployment shop/web: CrashLoopBackOff in 1 pod (medium)",
    ]);

    // News waits out the 5-minute update cooldown after the summary; resolves never wait.
    await clock.advance(300_000);
    crashPod(sim, "shop", "api-abc12-p1", 3, clock.now());
    healPod(sim, "shop", "web-abc12-p0", 10, clock.now());
    await cluster.settle();
    await hook.waitFor(3);
    const later = hook.requests.slice(1).map((r) => r.json());
    // Each follows in the thread of the incident the summary listed; no second summary, no new announcement.
    expect(later.map((b) => [b.action, b.incidentId, b.delivery]).sort()).toEqual([
      ["resolve", "Deployment/shop/web", undefined],
      ["update", "Deployment/shop/api", undefined],
    ]);
    expect(hook.requests).toHaveLength(3);
  });

  test("a silenced namespace sends nothing; the rest of the cluster is still told", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(
      await startTestCluster(
        { webhook: { url: `${hook.url}/mon` } },
        { config: { silences: [{ namespaces: ["shop"], reasons: ["CrashLoopBackOff"] }] } },
      ),
    );
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    crashPod(sim, "shop", "api-abc12-p0", 4, clock.now());
    await cluster.settle();
    sim.patchStatus("v1", "Node", undefined, "n3", {
      conditions: [
        {
          type: "Ready",
          status: "False",
          reason: "KubeletNotReady",
          message: "container runtime is down",
          lastHeartbeatTime: new Date(clock.now()).toISOString(),
          lastTransitionTime: new Date(clock.now() - 600_000).toISOString(),
        },
      ],
    });
    await clock.advance(300_000);
    await cluster.settle();
    const [told] = await hook.waitFor(1);
    expect(told!.json()).toMatchObject({ action: "announce", root: { kind: "Node", name: "n3" } });
    expect(hook.requests.map((r) => r.json().incidentId)).not.toContain("Deployment/shop/api");
  });

  test.each(["pro", "community"] as const)(
    "maintenance on a namespace holds its incidents in Pro until the annotation goes; Community ignores it (%s)",
    async (edition) => {
      const underMaintenance = {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "shop", annotations: { "mon.io/maintenance": "true" } },
      };
      const hook = track(await startCaptureServer());
      const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { edition }));
      const { sim, clock } = cluster;
      seedShop(sim, clock.now());
      sim.apply(underMaintenance);
      await cluster.settle();
      crashPod(sim, "shop", "api-abc12-p0", 4, clock.now());
      await cluster.settle();
      const crashedAt = clock.now();
      if (edition === "pro") {
        await clock.advance(60_000);
        await cluster.settle();
        sim.apply({ ...underMaintenance, metadata: { name: "shop" } });
        await cluster.settle();
      }
      const [told] = await hook.waitFor(1);
      expect(told!.json()).toMatchObject({ action: "announce", incidentId: "Deployment/shop/api" });
      // Held through the maintenance window in Pro: announced when it was lifted, not when the pod crashed.
      expect(Date.parse(told!.json().at) - crashedAt).toBe(edition === "pro" ? 60_000 : 0);
      expect(hook.requests).toHaveLength(1);
    },
  );

  test("two problems starting in one pass are one roll-up; each resolves on its own and the roll-up closes after the last", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" }));
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    crashPod(sim, "shop", "api-abc12-p0", 3, clock.now());
    crashPod(sim, "shop", "web-abc12-p0", 3, clock.now());
    await cluster.settle();
    const rollUp = (await hook.waitFor(1))[0]!.json();
    expect(rollUp).toMatchObject({
      action: "announce",
      delivery: "roll-up",
      covers: ["Deployment/shop/api", "Deployment/shop/web"],
    });
    expect(rollUp.text).toStartWith("🟠 2 new problems [prod]\n");

    healPod(sim, "shop", "api-abc12-p0", 4, clock.now());
    await cluster.settle();
    await clock.advance(120_000);
    healPod(sim, "shop", "web-abc12-p0", 4, clock.now());
    await cluster.settle();
    await hook.waitFor(4);
    expect(
      hook.requests
        .slice(1)
        .map((r) => r.json())
        .map((b) => [b.action, b.incidentId]),
    ).toEqual([
      ["resolve", "Deployment/shop/api"],
      ["resolve", "Deployment/shop/web"],
      ["resolve", rollUp.incidentId],
    ]);
    expect(hook.requests[3]!.json().text).toStartWith("✅ Resolved: all 2 problems of the roll-up [prod]");
  });

  test("a roll-up larger than the receiver takes (50 namespaces failing in one pass) is shortened to fit: every incident is told, nothing is dead-lettered (issue 30)", async () => {
    const LIMIT = 4_096;
    const hook = track(await startCaptureServer());
    // The receiver refuses what is over its limit, as a reverse proxy's client_max_body_size does.
    hook.setDefault((r) =>
      Buffer.byteLength(r.body, "utf8") > LIMIT ? { status: 413, body: "Request Entity Too Large" } : { status: 200 },
    );
    const cluster = track(
      await startTestCluster({ webhook: { url: `${hook.url}/mon`, maxBodyBytes: LIMIT } }, { cluster: "prod" }),
    );
    const { sim, clock } = cluster;
    for (const node of ["n1", "n2"]) sim.apply(readyNode(node, clock.now() - 86_400_000));
    const namespaces = Array.from({ length: 50 }, (_, n) => `team-${word(n)}`);
    for (const ns of namespaces)
      for (let d = 0; d < 10; d++) seedWorkload(sim, ns, `service-${d}`, ["n1"], clock.now());
    await cluster.settle();
    for (const [n, ns] of namespaces.entries())
      for (let d = 0; d < 10; d++)
        crashPod(sim, ns, `service-${d}-abc12-p0`, 4, clock.now(), `panic: ${word(n * 10 + d)} lost its config`);
    await cluster.settle();
    const taken = () => hook.requests.filter((r) => Buffer.byteLength(r.body, "utf8") <= LIMIT).map((r) => r.json());
    const named = () => new Set(taken().flatMap((b) => (b.covers ?? []).map((id: string) => id.split("/").at(-1))));
    await waitUntil(
      () => named().size >= namespaces.length,
      "every namespace to be named by a message the receiver took",
    );
    await cluster.daemon.sent();
    expect(named()).toEqual(new Set(namespaces));
    expect(taken().every((b) => b.action === "announce" && b.delivery === "roll-up")).toBe(true);
    expect(taken()[0].text).toContain("(shortened to fit the receiver's size limit");
    // mon sends nothing the receiver must refuse: it knows the limit (maxBodyBytes) and fits under it.
    expect(hook.requests.every((r) => Buffer.byteLength(r.body, "utf8") <= LIMIT)).toBe(true);
    expect(cluster.daemon.delivery.deadLetters()).toEqual([]);
    expect(await cluster.daemon.metrics.registry.getSingleMetricAsString("mon_delivery_shortened_total")).toMatch(
      /mon_delivery_shortened_total\{provider="webhook"\} [1-9]/,
    );
  });

  test("a crashed container whose last log line is 10 MB: the evidence is that line's end, where its message is (issue 30)", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" }));
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    const line = `ERROR request failed: ${'{"k":"v"},'.repeat(1_000_000)} caused by: disk quota exceeded on /data`;
    sim.setLogs("shop", "api-abc12-p0", "api", `starting api 1.0\n${line}\n`, true);
    crashPod(sim, "shop", "api-abc12-p0", 4, clock.now(), "exit 1");
    await cluster.settle();
    const [request] = await hook.waitFor(1);
    const log = request!.json().findings[0].evidence.log as string;
    expect(log).toEndWith("caused by: disk quota exceeded on /data");
    expect(log.length).toBeLessThanOrEqual(500);
  });

  test("a tier-normal problem is not announced; it is listed in the low-priority digest 30 minutes later", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" }));
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    const status = runningStatus("web", "ghcr.io/shop/web:1.0", new Date(clock.now() - 3_600_000).toISOString());
    sim.patchStatus("v1", "Pod", "shop", "web-abc12-p0", {
      ...status,
      conditions: [
        ...(status.conditions ?? []),
        {
          type: "DisruptionTarget",
          status: "True",
          reason: "PreemptionByScheduler",
          message: "preempted by a higher-priority pod",
          lastTransitionTime: new Date(clock.now()).toISOString(),
        },
      ],
    });
    await cluster.settle();
    await clock.advance(29 * 60_000);
    await cluster.settle();
    expect(cluster.daemon.delivery.depth("webhook")).toBe(0);
    expect(hook.requests).toHaveLength(0);
    await clock.advance(60_000);
    await cluster.settle();
    const digest = (await hook.waitFor(1))[0]!.json();
    expect(digest).toMatchObject({
      action: "announce",
      delivery: "digest",
      mode: "digest",
      covers: ["Deployment/shop/web"],
    });
    expect(digest.text).toBe(
      "🔵 Low-priority digest: 1 problem [prod]\n• deployment shop/web: PodPreempted in 1 pod — still open",
    );
  });

  test("a pod failing on a node that joined minutes ago gets 5 extra minutes before it is announced", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }));
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    sim.apply(readyNode("n4", clock.now()));
    const rs = sim.store
      .list(sim.typeOf("apps", "v1", "replicasets"), "shop")
      .find((r) => r.metadata.name.startsWith("web-"))!;
    sim.apply(runningPod(rs, "p9", "n4", clock.now()));
    await cluster.settle();
    crashPod(sim, "shop", `${rs.metadata.name}-p9`, 3, clock.now());
    const crashedAt = clock.now();
    await cluster.settle();
    // The grace is visible while it holds the finding.
    const inGrace = () => cluster.daemon.metrics.registry.getSingleMetricAsString("mon_findings_in_grace");
    expect(await inGrace()).toContain("mon_findings_in_grace 1");
    await clock.advance(5 * 60_000);
    await cluster.settle();
    const [told] = await hook.waitFor(1);
    expect(told!.json()).toMatchObject({ action: "announce", incidentId: "Deployment/shop/web" });
    // Not when it crashed: when the young node's grace had passed.
    expect(Date.parse(told!.json().at) - crashedAt).toBe(5 * 60_000);
  });

  test.each(["pro", "community"] as const)(
    "Pro: mon.io/ack on a failing pod posts one acknowledgement, removing it posts one more; Community ignores it (%s)",
    async (edition) => {
      const hook = track(await startCaptureServer());
      const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { edition }));
      const { sim, clock } = cluster;
      seedShop(sim, clock.now());
      await cluster.settle();
      crashPod(sim, "shop", "api-abc12-p0", 4, clock.now());
      await cluster.settle();
      await hook.waitFor(1);
      const annotate = (annotations: Record<string, string>) => {
        const pod = sim.store.get(sim.typeOf("", "v1", "pods"), "shop", "api-abc12-p0");
        sim.apply({ ...pod, metadata: { ...pod.metadata, annotations } });
      };
      annotate({ "mon.io/ack": "looking; db creds postgres://app:hunter2@db:5432 rotated" });
      await cluster.settle();
      annotate({});
      await cluster.settle();
      await clock.advance(300_000);
      crashPod(sim, "shop", "api-abc12-p1", 4, clock.now());
      await cluster.settle();
      const updates = (await hook.waitFor(edition === "pro" ? 4 : 2)).slice(1).map((r) => r.json());
      expect(updates.map((u) => u.news)).toEqual([
        ...(edition === "pro"
          ? [
              ['Acknowledged on Pod/api-abc12-p0: "looking; db creds postgres://app:[redacted]@db:5432 rotated"'],
              ["Acknowledgement removed"],
            ]
          : []),
        ["now affects 2 pods: shop/api-abc12-p0, shop/api-abc12-p1"],
      ]);
    },
  );

  test("two workloads refusing on the same database are one incident naming host:port", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" }));
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    for (const [pod, container] of [
      ["api-abc12-p0", "api"],
      ["web-abc12-p0", "web"],
    ] as const) {
      sim.setLogs("shop", pod, container, "starting\ndial tcp 10.96.0.50:5432: connect: connection refused\n", true);
      crashPod(sim, "shop", pod, 4, clock.now());
    }
    await cluster.settle();
    const [told] = await hook.waitFor(1);
    expect(told!.json()).toMatchObject({
      action: "announce",
      incidentId: "Endpoint//10.96.0.50:5432",
      reason: "DependencyUnreachable",
      root: { kind: "Endpoint", name: "10.96.0.50:5432" },
    });
    expect(told!.json().text).toStartWith(
      "🟠 endpoint 10.96.0.50:5432: unreachable, 2 workloads failing on it (deployment shop/api, deployment shop/web) [prod]",
    );
    expect(hook.requests).toHaveLength(1);
  });

  test.each(["pro", "community"] as const)(
    "Pro: severityByReason critical makes a crash loop page, in red, under the paging dedup key; Community keeps the built-in tier (%s)",
    async (edition) => {
      const hook = track(await startCaptureServer());
      const cluster = track(
        await startTestCluster(
          { webhook: { url: `${hook.url}/mon` } },
          { cluster: "prod", edition, config: { severityByReason: { crashloopbackoff: "Critical" } } },
        ),
      );
      const { sim, clock } = cluster;
      seedShop(sim, clock.now());
      await cluster.settle();
      crashPod(sim, "shop", "api-abc12-p0", 4, clock.now());
      await cluster.settle();
      const told = (await hook.waitFor(1))[0]!.json();
      if (edition === "pro") {
        expect(told).toMatchObject({ tier: "critical", mode: "page", dedupKey: "mon-prod-deployment-shop-api-page" });
        expect(told.text).toStartWith(
          "🔴 deployment shop/api: CrashLoopBackOff in 1 pod [prod]\ncritical · CrashLoopBackOff · page rule severityByReason",
        );
      } else {
        expect(told).toMatchObject({ tier: "medium", mode: "notify" });
      }
    },
  );

  test("a lost node pages after 5 minutes; unacknowledged, its thread is reminded 30 minutes later, then after another hour", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" }));
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    sim.patchStatus("v1", "Node", undefined, "n3", { conditions: [nodeReady("Unknown", clock.now())] });
    await cluster.settle();
    const times = [5 * 60_000, 29 * 60_000, 60_000, 59 * 60_000, 60_000];
    for (const ms of times) {
      await clock.advance(ms);
      await cluster.settle();
    }
    await waitUntil(() => hook.requests.length >= 4, "the announcement, the page and two reminders");
    const said = hook.requests.map((r) => r.json()).filter((b) => b.incidentId === "Node//n3");
    expect(said.map((b) => [b.action, b.mode, b.news])).toEqual([
      ["announce", "notify", []],
      ["update", "page", ["now paging: the failure has lasted long enough to match a page rule"]],
      ["update", "page", ["still paging, open for 35 min, not acknowledged"]],
      ["update", "page", ["still paging, open for 1 h 35 min, not acknowledged"]],
    ]);
    expect(said[2].text).toStartWith("🔴 Update: node n3:");
  });

  test("the last replica of a workload users reach through a Gateway API HTTPRoute is down: it pages (LastReplicaDown)", async () => {
    const hook = track(await startCaptureServer());
    const sim = await startSimulator();
    sim.addCustomResource({
      group: "gateway.networking.k8s.io",
      version: "v1",
      plural: "httproutes",
      kind: "HTTPRoute",
      namespaced: true,
    });
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod", sim }));
    const { clock } = cluster;
    seedShop(sim, clock.now());
    // Serving until the Deployment loses its last replica (the rule is checked alone here).
    servingService(sim, "web", "10.244.3.7", clock.now() - 86_400_000);
    sim.apply({
      apiVersion: "gateway.networking.k8s.io/v1",
      kind: "HTTPRoute",
      metadata: { namespace: "shop", name: "storefront" },
      spec: { parentRefs: [{ name: "public" }], rules: [{ backendRefs: [{ name: "web", port: 80 }] }] },
    });
    await cluster.settle();
    deploymentUnavailable(sim, "shop", "web", clock.now());
    await cluster.settle();
    await clock.advance(121_000);
    await cluster.settle();
    const [told] = await hook.waitFor(1);
    expect(told!.json()).toMatchObject({
      action: "announce",
      incidentId: "Deployment/shop/web",
      reason: "WorkloadUnavailable",
      tier: "critical",
      mode: "page",
    });
    expect(told!.json().text).toStartWith("🔴 deployment shop/web:");
    expect(told!.json().text).toContain("page rule LastReplicaDown");
    expect(told!.json().text).toContain("users reach it through service shop/web through httproute storefront");
  });

  test("a crash loop of pods without a readiness probe behind a Service says what that cost (spec 1.6)", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" }));
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    servingService(sim, "api", "10.244.1.7");
    await cluster.settle();
    crashPod(sim, "shop", "api-abc12-p0", 4, clock.now());
    await cluster.settle();
    const [told] = await hook.waitFor(1);
    const crash = told!.json().findings.find((f: { reason: string }) => f.reason === "CrashLoopBackOff");
    expect(crash.summary).toEndWith(
      "what it cost: no readiness probe, so service api kept sending it traffic between crashes",
    );
  });

  test("an expired certificate an Ingress serves is announced; the Secret's values never leave mon", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" }));
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    const { certPem, keyPem } = servingCertificate({
      cn: "shop.example.com",
      dnsNames: ["shop.example.com"],
      notAfter: clock.now() - 3 * 86_400_000,
    });
    servingService(sim, "web", "10.244.3.7");
    sim.apply({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { namespace: "shop", name: "shop-tls" },
      type: "kubernetes.io/tls",
      data: { "tls.crt": Buffer.from(certPem).toString("base64"), "tls.key": Buffer.from(keyPem).toString("base64") },
    });
    sim.apply({
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: { namespace: "shop", name: "storefront" },
      spec: {
        tls: [{ hosts: ["shop.example.com"], secretName: "shop-tls" }],
        rules: [
          {
            host: "shop.example.com",
            http: {
              paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "web", port: { number: 80 } } } }],
            },
          },
        ],
      },
    });
    // settle() compares pods and workloads only: wait for the Secret and the Ingress, then pass.
    await waitUntil(
      () => Boolean(cluster.daemon.inventory.get("Ingress", "shop", "storefront")),
      "the Ingress in mon's caches",
    );
    await waitUntil(() => Boolean(cluster.daemon.inventory.get("Secret", "shop", "shop-tls")), "the Secret");
    await waitUntil(() => cluster.daemon.inventory.list("EndpointSlice").length === 1, "the EndpointSlice");
    await cluster.settle();
    const certs = () => hook.requests.map((r) => r.json()).filter((b) => b.reason === "CertificateExpired");
    await waitUntil(() => certs().length === 1, "the expired certificate");
    expect(certs()[0]).toMatchObject({
      action: "announce",
      root: { kind: "Secret", namespace: "shop", name: "shop-tls" },
    });
    expect(certs()[0].text).toContain("TLS secret shop/shop-tls: the certificate expired");
    expect(certs()[0].text).toContain("used by: ingress storefront");
    expect(JSON.stringify(hook.requests.map((r) => r.body))).not.toContain("BEGIN");
  });

  test("the owner named by mon.io/owner on the namespace travels with the incident", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }));
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    sim.apply({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "shop", labels: { "mon.io/owner": "team-payments" } },
    });
    await cluster.settle();
    crashPod(sim, "shop", "api-abc12-p0", 4, clock.now());
    await cluster.settle();
    const told = (await hook.waitFor(1))[0]!.json();
    expect(told.owner).toBe("team-payments");
    expect(told.text.split("\n")[1]).toBe("medium · CrashLoopBackOff · 1 finding · owner team-payments");
  });

  test("the startup message: one plain sentence with the version, before any incident; app.disableStartupMessage turns it off", async () => {
    const hook = track(await startCaptureServer());
    const _cluster = track(
      await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod", startupMessage: true }),
    );
    const [notice] = await hook.waitFor(1);
    expect(notice!.json()).toMatchObject({
      action: "announce",
      delivery: "notice",
      root: { kind: "Cluster", name: "prod" },
    });
    expect(notice!.json().text).toBe(`🔵 mon ${VERSION} started watching prod.`);
  });

  test.each([false, true])(
    "Community: a message says in one line what Pro would add (here: the other provider); app.hideProHints=%s",
    async (hide) => {
      const hook = track(await startCaptureServer());
      const other = track(await startCaptureServer());
      const cluster = track(
        await startTestCluster(
          { webhook: { url: `${hook.url}/mon` }, alertmanager: { urls: [other.url] } },
          { cluster: "prod", config: { app: { communityProvider: "webhook", hideProHints: hide } } },
        ),
      );
      const { sim, clock } = cluster;
      seedShop(sim, clock.now());
      await cluster.settle();
      crashPod(sim, "shop", "api-abc12-p0", 4, clock.now());
      await cluster.settle();
      const text = (await hook.waitFor(1))[0]!.json().text as string;
      if (hide) expect(text).not.toContain("With Pro");
      else expect(text.split("\n").at(-1)).toBe("With Pro, this would also go to alertmanager.");
      expect(other.requests).toHaveLength(0);
    },
  );
});
