import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useCleanup } from "../testing/cleanup.ts";
import { runCli } from "../testing/cli.ts";
import { type CaptureServer, startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import {
  crashPod,
  deploymentUnavailable,
  seedShop,
  seedWorkload,
  startTestCluster,
  type TestCluster,
} from "../testing/cluster.ts";

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

function explainRun(c: TestCluster, object: string, ...more: string[]) {
  const url = c.daemon.healthUrl();
  if (!url) throw new Error("no health server");
  return runCli(["explain", object, ...more, "--url", url], { home, env: { MON_DIAGNOSTICS_TOKEN: TOKEN } });
}

async function explain(c: TestCluster, object: string, ...more: string[]): Promise<string> {
  const run = await explainRun(c, object, ...more);
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
    // A kind mon does not watch has no trace: an error that says why (a coverage gap), exit 1.
    const unwatched = await explainRun(c, "secret/shop/db-credentials");
    expect(unwatched.code).toBe(1);
    expect(unwatched.stderr).toBe(
      "mon explain: mon does not watch Secret objects (disabled_by_config, see /health coverage), so it has no trace of Secret/shop/db-credentials\n",
    );
    // kubectl's forms name the same object: short names, plurals, any case, KIND NAME with -n.
    for (const form of [
      ["po/shop/api-abc12-p0"],
      ["pods/api-abc12-p0", "-n", "shop"],
      ["POD", "api-abc12-p0", "--namespace", "shop"],
      ["Pods", "api-abc12-p0", "-n", "shop"],
    ])
      expect(await explain(c, form[0]!, ...form.slice(1))).toBe(silenced);
    // What mon never saw failing: the answer says since when it would know, and why no earlier.
    expect(await explain(c, "deploy/shop/quiet")).toMatch(
      /^Deployment\/shop\/quiet\n {2}nothing recorded since \d\d:\d\d:\d\d UTC, when this replica began to lead: mon has not seen it failing since \(the trace is kept in memory: a restart or a takeover starts it anew/,
    );
    // A kind mon does not know is an error, with the kind it probably meant.
    const unknown = await explainRun(c, "deploymnt/shop/web");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('mon explain: mon knows no kind named "deploymnt" (did you mean Deployment?)');
    const scoped = await explainRun(c, "node/shop/n3");
    expect(scoped.code).toBe(1);
    expect(scoped.stderr).toContain("Node objects have no namespace: name it as Node/n3");
  });

  test("a silenced crash loop is not carried out by its workload's unavailability, and explain names the rule on the workload (issue 41)", async () => {
    const h = await hook();
    const c = await cluster(
      { webhook: { url: `${h.url}/mon` } },
      { silences: [{ namespaces: ["batch"], reasons: ["CrashLoopBackOff"] }] },
    );
    seedWorkload(c.sim, "batch", "nightly", ["n1"], c.clock.now());
    await c.settle();
    crashPod(c.sim, "batch", "nightly-abc12-p0", 4, c.clock.now());
    deploymentUnavailable(c.sim, "batch", "nightly", c.clock.now());
    for (let i = 0; i < 6; i++) {
      await c.settle();
      await c.clock.advance(60_000);
    }
    await c.settle();
    const workload = await explain(c, "deploy/batch/nightly");
    expect(workload).toMatch(/detected +WorkloadUnavailable/);
    expect(workload).toMatch(
      /suppressed +with its cause Pod\/batch\/nightly-abc12-p0 \(CrashLoopBackOff\), silenced by test\.yaml:\d+\n/,
    );
    expect(h.requests.map((r) => r.json().incidentId)).toEqual([]);
  });

  test("a silence with a misspelt scope key silences nothing, and explain shows the crash loop told (issue 52 item 4)", async () => {
    const h = await hook();
    // `namespace:` for `namespaces:` — left unparsed, the rule would silence CrashLoopBackOff everywhere.
    const c = await cluster(
      { webhook: { url: `${h.url}/mon` } },
      { silences: [{ namespace: ["batch"], reasons: ["CrashLoopBackOff"] }] },
    );
    crashPod(c.sim, "shop", "api-abc12-p0", 4, c.clock.now());
    await waitUntil(async () => {
      await c.settle();
      await c.clock.advance(30_000);
      return h.requests.some((r) => r.json().incidentId?.includes("shop/api") && r.json().action === "announce");
    }, "the crash loop in shop announced");
    expect(await explain(c, "Pod/shop/api-abc12-p0")).not.toMatch(/silenced by/);
  });

  test("an hour of passes over a Deployment failing two ways keeps its announce and delivery lines (issue 52 item 8)", async () => {
    const h = await hook();
    const c = await cluster({ webhook: { url: `${h.url}/mon` } });
    seedWorkload(c.sim, "shop", "stuck", ["n1"], c.clock.now() - 3_600_000);
    const since = new Date(c.clock.now()).toISOString().replace(/\.\d+Z$/, "Z");
    deploymentUnavailable(c.sim, "shop", "stuck", c.clock.now(), [
      {
        type: "Progressing",
        status: "False",
        reason: "ProgressDeadlineExceeded",
        message: 'ReplicaSet "stuck-abc12" has timed out progressing.',
        lastTransitionTime: since,
        lastUpdateTime: since,
      },
    ]);
    await waitUntil(async () => {
      await c.settle();
      await c.clock.advance(30_000);
      return h.requests.some((r) => r.json().action === "announce");
    }, "the stuck Deployment announced");
    for (let i = 0; i < 120; i++) {
      await c.clock.advance(30_000);
      await c.settle();
    }
    const out = await explain(c, "deploy/shop/stuck");
    expect(out).toMatch(/decided +announce \(revision 1\)/);
    expect(out).toMatch(/delivered to webhook/);
    for (const reason of ["ProgressDeadlineExceeded", "WorkloadUnavailable"])
      expect([reason, out.split("\n").filter((l) => new RegExp(`detected +${reason}`).test(l)).length]).toEqual([
        reason,
        1,
      ]);
  });

  test("a silenced workload joins no group: a shared error names and counts only the others, an outside endpoint needs two unsilenced (issue 52 item 3)", async () => {
    const h = await hook();
    const c = await cluster(
      { webhook: { url: `${h.url}/mon` } },
      { silences: [{ namespaces: ["batch"], reasons: ["CrashLoopBackOff"] }] },
    );
    const now = c.clock.now();
    const error = 'FATAL: password authentication failed for user "sync" on the ledger database';
    const refused = "dial tcp 203.0.113.50:5432: connect: connection refused";
    for (const [ns, name, output] of [
      ["batch", "sync-a", error],
      ["pay", "sync-b", error],
      ["pay", "sync-c", error],
      ["batch", "etl-a", refused],
      ["pay", "etl-b", refused],
    ] as const) {
      seedWorkload(c.sim, ns, name, ["n1"], now - 3_600_000);
      crashPod(c.sim, ns, `${name}-abc12-p0`, 4, now, output);
    }
    const told = () =>
      h.requests.map((r) => r.json() as { action: string; incidentId: string; text: string; covers?: string[] });
    // Told at once, they come as a roll-up: each problem is one it covers.
    const ids = () => told().flatMap((m) => [m.incidentId, ...(m.covers ?? [])]);
    await waitUntil(async () => {
      await c.settle();
      await c.clock.advance(30_000);
      return ids().includes("Deployment/pay/etl-b");
    }, "the unsilenced workload on the outside endpoint, told on its own");
    for (let i = 0; i < 4; i++) {
      await c.clock.advance(30_000);
      await c.settle();
    }
    // No endpoint incident: with batch/etl-a silenced, one workload fails on the outside host.
    expect(ids().filter((id) => id.startsWith("Endpoint/"))).toEqual([]);
    // The shared error is the two of pay, never batch's; nothing told names batch.
    expect(ids().filter((id) => id.startsWith("Error/")).length).toBeGreaterThan(0);
    const text = told()
      .map((m) => m.text)
      .join("\n");
    expect(text).toContain("the same error in 2 workloads");
    expect(text).not.toContain("batch/");
    // The silenced pods' own traces say they were silenced, by which rule.
    for (const pod of ["Pod/batch/sync-a-abc12-p0", "Pod/batch/etl-a-abc12-p0"])
      expect(await explain(c, pod)).toMatch(/suppressed +silenced by test\.yaml:\d+/);
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
    const node = await explain(c, "no/n3");
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
