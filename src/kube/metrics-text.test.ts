import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { apiServerRequests } from "./apiserver-metrics.ts";
import { dnsCounters, dnsPods } from "./dns-metrics.ts";
import { increase } from "./prometheus-text.ts";

const FIXTURE = join(
  import.meta.dirname,
  "..",
  "sim",
  "testdata",
  "kube-apiserver-v1.32",
  "nonresource",
  "metrics.json",
);
const recorded = JSON.parse(readFileSync(FIXTURE, "utf8")).response;

describe("API server /metrics (spec 4.3)", () => {
  test("the recorded kube-apiserver v1.32 exposition: its /readyz 500s during start-up are not failed requests", () => {
    const text = `${recorded.body}\n${(recorded.apiserverRequestTotalLines as string[]).join("\n")}\n`;
    const counted = apiServerRequests(text);
    expect(counted.errors).toBe(0);
    expect(counted.total).toBe(264);
  });

  test("5xx answers are errors; watches are left out", () => {
    const text = [
      "# TYPE apiserver_request_total counter",
      'apiserver_request_total{code="200",resource="pods",subresource="",verb="LIST"} 90',
      'apiserver_request_total{code="503",resource="pods",subresource="",verb="LIST"} 10',
      'apiserver_request_total{code="500",resource="pods",subresource="",verb="WATCH"} 40',
      'apiserver_request_total{code="429",resource="pods",subresource="",verb="GET"} 5',
      "",
    ].join("\n");
    expect(apiServerRequests(text)).toEqual({ total: 105, errors: 10 });
  });
});

describe("CoreDNS metrics, port 9153 (spec 4.3)", () => {
  const exposition = (noerror: number, servfail: number, broken: number) =>
    [
      "# HELP coredns_dns_responses_total Counter of response status codes.",
      "# TYPE coredns_dns_responses_total counter",
      `coredns_dns_responses_total{plugin="cache",rcode="NOERROR",server="dns://:53",zone="."} ${noerror}`,
      `coredns_dns_responses_total{plugin="forward",rcode="SERVFAIL",server="dns://:53",zone="."} ${servfail}`,
      "# HELP coredns_forward_healthcheck_broken_total Counter of the number of complete failures of the healthchecks.",
      "# TYPE coredns_forward_healthcheck_broken_total counter",
      `coredns_forward_healthcheck_broken_total ${broken}`,
      "# HELP go_goroutines Number of goroutines that currently exist.",
      "# TYPE go_goroutines gauge",
      "go_goroutines 42",
      "",
    ].join("\n");

  test("responses, SERVFAIL and upstream breaks are summed from the exposition", () => {
    expect(dnsCounters(exposition(900, 100, 2))).toEqual({ responses: 1000, servfail: 100, upstreamBroken: 2 });
  });

  test("what happened between two reads, per pod; a pod whose counters went down restarted and is left out", () => {
    const before = new Map([
      ["a", dnsCounters(exposition(100, 0, 0))],
      ["b", dnsCounters(exposition(500, 5, 0))],
      ["gone", dnsCounters(exposition(1, 1, 1))],
    ]);
    const after = new Map([
      ["a", dnsCounters(exposition(180, 20, 1))],
      ["b", dnsCounters(exposition(3, 0, 0))],
      ["new", dnsCounters(exposition(10, 0, 0))],
    ]);
    expect(increase(before, after)).toEqual({ responses: 100, servfail: 20, upstreamBroken: 1 });
    expect(increase(new Map(), after)).toBeUndefined();
  });

  test("the cluster DNS pods are the running k8s-app=kube-dns pods of kube-system with an IP", () => {
    const pod = (ns: string, app: string, phase: string, podIP?: string) => ({
      metadata: { namespace: ns, name: `${app}-${phase}`, labels: { "k8s-app": app } },
      status: { phase, ...(podIP ? { podIP } : {}) },
    });
    expect(
      dnsPods([
        pod("kube-system", "kube-dns", "Running", "10.244.0.3"),
        pod("kube-system", "kube-dns", "Pending"),
        pod("shop", "kube-dns", "Running", "10.244.1.9"),
        pod("kube-system", "metrics", "Running", "10.244.0.4"),
      ]).map((p) => p.metadata.name),
    ).toEqual(["kube-dns-Running"]);
  });
});
