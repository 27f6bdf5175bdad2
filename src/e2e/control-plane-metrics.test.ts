import { afterEach, describe, expect, test } from "bun:test";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startCaptureServer, waitUntil, type CaptureServer } from "../testing/capture-server.ts";
import { seedShop, startTestCluster, type TestCluster } from "../testing/cluster.ts";

let cluster: TestCluster | undefined;
let hook: CaptureServer | undefined;
let coredns: Server | undefined;
afterEach(async () => {
  await cluster?.stop();
  await hook?.close();
  coredns?.close();
  cluster = hook = coredns = undefined;
});

describe("cluster DNS metrics (port 9153): the daemon against the simulator", () => {
  test("CoreDNS answering a quarter of queries with SERVFAIL between two reads is one incident on the DNS Deployment", async () => {
    // A CoreDNS metrics endpoint on loopback whose counters grow by 300 NOERROR and 100 SERVFAIL per read.
    let reads = 0;
    coredns = createServer((_req, res) => {
      reads++;
      res.setHeader("content-type", "text/plain; version=0.0.4");
      res.end(
        [
          "# TYPE coredns_dns_responses_total counter",
          `coredns_dns_responses_total{plugin="forward",rcode="NOERROR",server="dns://:53",zone="."} ${300 * reads}`,
          `coredns_dns_responses_total{plugin="forward",rcode="SERVFAIL",server="dns://:53",zone="."} ${100 * reads}`,
          "",
        ].join("\n"),
      );
    });
    await new Promise<void>((r) => coredns!.listen(0, "127.0.0.1", r));
    const port = (coredns.address() as AddressInfo).port;

    hook = await startCaptureServer();
    cluster = await startTestCluster(
      { webhook: { url: `${hook.url}/mon` } },
      { cluster: "prod", dnsMetricsPort: port },
    );
    const { sim, clock, daemon } = cluster;
    seedShop(sim, clock.now());
    sim.apply({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { namespace: "kube-system", name: "coredns", labels: { "k8s-app": "kube-dns" } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { "k8s-app": "kube-dns" } },
        template: {
          metadata: { labels: { "k8s-app": "kube-dns" } },
          spec: { containers: [{ name: "coredns", image: "registry.k8s.io/coredns/coredns:v1.11.3" }] },
        },
      },
    });
    sim.patchStatus("apps/v1", "Deployment", "kube-system", "coredns", {
      replicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
    });
    sim.apply({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { namespace: "kube-system", name: "coredns-5d78c9869d-abcde", labels: { "k8s-app": "kube-dns" } },
      spec: { nodeName: "n1", containers: [{ name: "coredns", image: "registry.k8s.io/coredns/coredns:v1.11.3" }] },
    });
    sim.patchStatus("v1", "Pod", "kube-system", "coredns-5d78c9869d-abcde", {
      phase: "Running",
      podIP: "127.0.0.1",
      containerStatuses: [
        {
          name: "coredns",
          image: "registry.k8s.io/coredns/coredns:v1.11.3",
          imageID: "",
          ready: true,
          started: true,
          restartCount: 0,
          state: { running: { startedAt: new Date(clock.now()).toISOString() } },
        },
      ],
    });
    await cluster.settle();
    // The first read (at sync) may or may not have seen the DNS pod; two more at this same instant (one asked
    // for while another runs) give no rate over 0 s, and the read a minute later gives one 60 s interval.
    await Promise.all([daemon.usage.round(), daemon.usage.round()]);
    expect(daemon.usage.latest().dnsResponses).toBeUndefined();
    await clock.advance(60_000);
    await waitUntil(() => daemon.usage.latest().dnsResponses !== undefined, "two DNS metrics reads");
    expect(daemon.usage.latest().dnsResponses).toMatchObject({ responses: 400, servfail: 100 });
    await cluster.settle();
    const [told] = await hook.waitFor(1);
    expect(told!.json()).toMatchObject({
      action: "announce",
      incidentId: "Deployment/kube-system/coredns",
      reason: "ClusterDNSErrors",
    });
    expect(told!.json().text).toContain(
      "cluster DNS answered 25 % of queries with SERVFAIL in the last 60 s (100 of 400)",
    );
  });
});
