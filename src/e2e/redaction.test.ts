import { describe, expect, test } from "bun:test";
import { deployment, readyNode, runningPod } from "../sim/scenarios/builders.ts";
import { HARMLESS_SHAPES, leakOf, SECRET_SHAPES } from "../redact/testdata/corpus.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { consistent, crashPod, deliverySettled, startTestCluster, type TestCluster } from "../testing/cluster.ts";

/**
 * Spec 6.8 end to end: every shape of the redaction corpus is written by a pod into one channel — its
 * termination message, its waiting message, a Warning Event, its log, an acknowledgement note — and the
 * webhook must receive the message with 0 leaks, with the text around the credential still there.
 * Each shape lives in a namespace of its own (a Deployment with one pod), so each is its own incident.
 */
const track = useCleanup();

type Channel = "termination message" | "waiting message" | "Event" | "log" | "ack note";

/**
 * What pod `i` writes around a shape: words an engineer needs and a step number to find it by, on the last
 * line (a termination message is shown by its last line).
 */
const around = (i: number, text: string) => `error: ${text} (step-${i} failed, retrying)`;

async function seed(cluster: TestCluster, count: number): Promise<void> {
  const { sim, clock } = cluster;
  sim.apply(readyNode("n1", clock.now() - 86_400_000));
  for (let i = 0; i < count; i++) {
    const namespace = `r${i}`;
    sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    const { deployment: d, replicaSet } = deployment(namespace, "app", 1, "ghcr.io/shop/app:1.0", "abc12");
    const dep = sim.apply(d);
    const rs = sim.apply({
      ...replicaSet,
      metadata: {
        ...replicaSet.metadata,
        ownerReferences: [
          { apiVersion: "apps/v1", kind: "Deployment", name: "app", uid: dep.metadata.uid, controller: true },
        ],
      },
    });
    sim.apply(runningPod(rs, "p0", "n1", clock.now() - 3_600_000));
  }
  await cluster.settle();
}

/** Makes pod `i` write `text` into `channel`. */
function write(cluster: TestCluster, channel: Channel, i: number, text: string): void {
  const { sim, clock } = cluster;
  const namespace = `r${i}`;
  const pod = "app-abc12-p0";
  const now = new Date(clock.now()).toISOString();
  switch (channel) {
    case "termination message":
      crashPod(sim, namespace, pod, 4, clock.now(), around(i, text));
      return;
    case "log":
      sim.setLogs(namespace, pod, "app", `starting app 1.0\n${around(i, text)}\n`, true);
      crashPod(sim, namespace, pod, 4, clock.now(), "exit");
      return;
    case "waiting message":
      sim.patchStatus("v1", "Pod", namespace, pod, {
        phase: "Pending",
        conditions: [{ type: "Ready", status: "False", lastTransitionTime: now }],
        containerStatuses: [
          {
            name: "app",
            image: "ghcr.io/shop/app:1.0",
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: "CreateContainerError", message: around(i, text) } },
          },
        ],
      });
      return;
    case "Event":
      sim.apply({
        apiVersion: "v1",
        kind: "Event",
        metadata: { namespace, name: `${pod}.mount` },
        type: "Warning",
        reason: "FailedMount",
        message: around(i, text),
        count: 3,
        firstTimestamp: now,
        lastTimestamp: now,
        involvedObject: { kind: "Pod", namespace, name: pod, apiVersion: "v1" },
        source: { component: "kubelet" },
      });
      return;
    case "ack note": {
      const current = sim.store.get(sim.typeOf("", "v1", "pods"), namespace, pod);
      // A note is quoted up to 200 bytes: the step goes first.
      const note = `step-${i} failed: ${text}`;
      sim.apply({ ...current, metadata: { ...current.metadata, annotations: { "mon.io/ack": note } } });
      return;
    }
  }
}

/** Runs `shapes` through `channel` and returns the webhook bodies, one per shape at least. */
async function deliver(channel: Channel, texts: readonly string[]): Promise<string> {
  const hook = track(await startCaptureServer());
  const cluster = track(
    await startTestCluster(
      { webhook: { url: `${hook.url}/mon`, hourlyBudget: 0 } },
      channel === "ack note" ? { edition: "pro" } : {},
    ),
  );
  await seed(cluster, texts.length);
  if (channel === "ack note") {
    for (let i = 0; i < texts.length; i++)
      crashPod(cluster.sim, `r${i}`, "app-abc12-p0", 4, cluster.clock.now(), "exit");
    await cluster.settle();
    await waitUntil(
      () => new Set(hook.requests.flatMap((r) => r.body.match(/"namespace":"r\d+"/g) ?? [])).size >= texts.length,
      "every crash to be told",
      60_000,
    );
  }
  const before = hook.requests.length;
  for (const [i, text] of texts.entries()) write(cluster, channel, i, text);
  // settle() waits for the workload kinds only; the Events must be in mon's Inventory too before its passes.
  if (channel === "Event")
    await waitUntil(
      () => consistent(cluster.sim, cluster.daemon, [["Event", "", "events"]]),
      "the Events to reach mon",
    );
  await cluster.settle();
  // Past the holds: a container the runtime cannot create and a mount failure wait a little for their cause
  // before they are told (still within the 15 minutes a Warning Event counts).
  await deliverySettled(cluster.daemon);
  await cluster.clock.advance(5 * 60_000);
  await cluster.settle();
  await waitUntil(
    () =>
      new Set(hook.requests.slice(before).flatMap((r) => r.body.match(/step-\d+ failed/g) ?? [])).size >= texts.length,
    `every ${channel} to be told`,
    60_000,
  );
  return hook.requests
    .slice(before)
    .map((r) => JSON.stringify(JSON.parse(r.body)))
    .join("\n");
}

const CHANNELS: readonly Channel[] = ["termination message", "waiting message", "Event", "log", "ack note"];

describe(`redaction end to end: ${SECRET_SHAPES.length} credential shapes in every channel reach the webhook redacted (spec 6.8)`, () => {
  for (const channel of CHANNELS) {
    test(`${channel}: 0 leaks, and each message still says which step failed`, async () => {
      const bodies = await deliver(
        channel,
        SECRET_SHAPES.map((s) => s.text),
      );
      // The bodies are JSON: compare with each secret as JSON writes it.
      const decoded = JSON.parse(`[${bodies.split("\n").join(",")}]`) as unknown[];
      const plain = decoded.map((b) => JSON.stringify(b)).join("\n");
      const leaks = SECRET_SHAPES.flatMap((s) => {
        const leak = leakOf(plain, JSON.stringify(s.secret).slice(1, -1)) ?? leakOf(plain, s.secret);
        return leak ? [`${s.name}: ${leak}`] : [];
      });
      expect(leaks).toEqual([]);
      for (const [i] of SECRET_SHAPES.entries()) expect(plain).toContain(`step-${i} failed`);
      expect(plain).toContain("[redacted");
    }, 180_000);
  }

  test("look-alikes pass untouched: image digests, UIDs, resourceVersions, commit SHAs and trace ids stay readable", async () => {
    const bodies = await deliver(
      "termination message",
      HARMLESS_SHAPES.map((h) => h.text.replaceAll("\n", " ")),
    );
    const plain = (JSON.parse(`[${bodies.split("\n").join(",")}]`) as unknown[])
      .map((b) => JSON.stringify(b))
      .join("\n");
    const lost = HARMLESS_SHAPES.filter(
      (h) => !plain.includes(JSON.stringify(h.text.replaceAll("\n", " ")).slice(1, -1)),
    );
    expect(lost.map((h) => h.name)).toEqual([]);
  }, 180_000);
});
