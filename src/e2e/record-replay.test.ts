import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { record } from "../app/commands/record.ts";
import { connectKube } from "../kube/connection.ts";
import { createFakeClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { readyNode, rebootedEvent } from "../sim/scenarios/builders.ts";
import { startSimulator } from "../sim/simulator.ts";
import { deployment, fate, NS } from "../sim/stories/story.ts";
import { TIMELINES_DIR } from "../sim/timeline.ts";
import { waitUntil } from "../testing/capture-server.ts";
import { runCli } from "../testing/cli.ts";

/**
 * `mon record` and `mon replay` (issue 32): a cluster's life recorded read-only into a timeline, replayed
 * through the real engine under two configurations, and the difference they make printed.
 */
const home = mkdtempSync(join(tmpdir(), "mon-replay-"));

function configs(dir: string): { old: string; silenced: string } {
  const base = "app:\n  clusterName: prod\nalert:\n  webhook:\n    url: http://127.0.0.1:9/hook\n";
  const old = join(dir, "old.yaml");
  const silenced = join(dir, "new.yaml");
  writeFileSync(old, base);
  writeFileSync(silenced, `${base}silences:\n  - namespaces: [${NS}]\n    reasons: [ImagePullBackOff]\n`);
  return { old, silenced };
}

/**
 * Records the simulator's cluster for `seconds` of its clock after the first sync, `during` done once it began;
 * returns the timeline's folder.
 */
async function recordFor(
  sim: Awaited<ReturnType<typeof startSimulator>>,
  clock: ReturnType<typeof createFakeClock>,
  seconds: number,
  secrets: boolean | undefined,
  during: () => void,
): Promise<{ out: string; end: string; events: number }> {
  const out = mkdtempSync(join(tmpdir(), "mon-record-"));
  const recording = record({
    connection: await connectKube({ kubeconfigText: sim.kubeconfig() }),
    clock,
    logger: createSilentLogger(),
    out,
    durationMs: seconds * 1000,
    maxBytes: 10 * 1024 ** 2,
    ...(secrets !== undefined ? { secrets } : {}),
  });
  let ended = false;
  void recording.done.then(() => (ended = true));
  // The recorder looks for the first sync every 250 ms of its clock.
  await waitUntil(async () => {
    await clock.advance(250);
    return existsSync(join(out, "initial.json"));
  }, "the initial lists");
  during();
  await waitUntil(
    async () => {
      await clock.advance(5_000);
      await new Promise((r) => setTimeout(r, 2));
      return ended;
    },
    "the recording's end",
    60_000,
  );
  return { out, ...(await recording.done) };
}

describe("mon record and mon replay", () => {
  test("a healthy workload reading a Secret replays as healthy: the Secret is recorded as mon keeps it, never its value (issue 52 item 10)", async () => {
    const clock = createFakeClock(Date.UTC(2026, 5, 1, 9));
    const sim = await startSimulator({ now: () => clock.now(), controllers: clock });
    try {
      for (const n of ["worker-1", "worker-2"]) sim.apply(readyNode(n, clock.now() - 86_400_000));
      sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
      const password = "correct-horse-battery-staple-9431";
      sim.apply({
        apiVersion: "v1",
        kind: "Secret",
        type: "Opaque",
        metadata: { namespace: NS, name: "db-credentials" },
        data: { password: Buffer.from(password).toString("base64") },
      });
      const env = [{ name: "DB_PASSWORD", valueFrom: { secretKeyRef: { name: "db-credentials", key: "password" } } }];
      const api = (version: string) =>
        deployment("api", `ghcr.io/shop/api:${version}`, 2, {
          spec: { containers: [{ name: "api", image: `ghcr.io/shop/api:${version}`, env }] },
        });
      sim.apply(api("2.0"), "kubectl-client-side-apply");
      await clock.advance(60_000);
      const { old } = configs(mkdtempSync(join(tmpdir(), "mon-replay-config-")));
      for (const secrets of [undefined, false]) {
        // A healthy rollout while it records: new pods read the Secret as they start.
        const { out } = await recordFor(sim, clock, 120, secrets, () =>
          sim.apply(api(secrets === false ? "2.2" : "2.1"), "kubectl-client-side-apply"),
        );
        const files = ["initial.json", "events.jsonl", "README.md", "recording.json"].map((f) =>
          readFileSync(join(out, f), "utf8"),
        );
        for (const text of files) {
          expect(text).not.toContain(password);
          expect(text).not.toContain(Buffer.from(password).toString("base64"));
        }
        const kinds = (JSON.parse(files[0]!) as { kind: string }[]).map((o) => o.kind);
        expect(kinds.includes("Secret")).toBe(secrets !== false);
        expect(JSON.parse(files[3]!)).toEqual({ secrets: secrets !== false });
        const replayed = await runCli(["replay", out, "--config", old], { home });
        expect(replayed.code).toBe(0);
        // Recorded, the Secret is there; left out, a replay does not judge Secrets at all: nothing is missing.
        expect(replayed.stdout).not.toContain("SecretMissing");
        expect(replayed.stdout).not.toContain("db-credentials");
      }
    } finally {
      await sim.stop();
    }
  }, 120_000);

  test("a bad rollout recorded from a cluster replays to its announcement; a new silence's difference is printed", async () => {
    const clock = createFakeClock(Date.UTC(2026, 5, 1, 9));
    const sim = await startSimulator({ now: () => clock.now(), controllers: clock });
    try {
      for (const n of ["worker-1", "worker-2"]) sim.apply(readyNode(n, clock.now() - 86_400_000));
      sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
      sim.apply(deployment("cart", "ghcr.io/shop/cart:1.4.0", 2), "kubectl-client-side-apply");
      await clock.advance(60_000);
      const { out, end, events } = await recordFor(sim, clock, 600, undefined, () =>
        sim.apply(
          deployment("cart", "ghcr.io/shop/cart:1.4.O", 2, { annotations: fate("image-missing") }),
          "kubectl-set",
        ),
      );
      expect(end).toBe("duration");
      expect(events).toBeGreaterThan(10);
      expect(readFileSync(join(out, "README.md"), "utf8")).toContain("ended by duration");

      const { old, silenced } = configs(out);
      const one = await runCli(["replay", out, "--config", old], { home });
      expect(one.code).toBe(0);
      expect(one.stdout).toMatch(/webhook +announce +deployment shop\/cart: ImagePullBackOff/);
      // What changed is told on the replay as on the cluster: the manager and the image change of the rollout.
      const json = await runCli(["replay", out, "--config", old, "--format", "json"], { home });
      const [{ messages }] = JSON.parse(json.stdout) as [{ messages: { action: string; text: string }[] }];
      expect(messages.find((m) => m.action === "announce")?.text).toMatch(
        /Changed: [^\n]*kubectl-set rolled out deployment shop\/cart: revision 1 → 2; image cart: ghcr\.io\/shop\/cart:1\.4\.0 → ghcr\.io\/shop\/cart:1\.4\.O\./,
      );
      const diff = await runCli(["replay", out, "--config", silenced, "--config", old], { home });
      expect(diff.code).toBe(0);
      expect(diff.stdout).toMatch(
        /What new\.yaml changes against old\.yaml:\n {2}- webhook: announce Deployment\/shop\/cart is told with old\.yaml, not with new\.yaml \(silenced by new\.yaml:7\)/,
      );
    } finally {
      await sim.stop();
    }
  }, 60_000);

  test("a recorded timeline the repository carries replays exactly: a silence's difference, line by line", async () => {
    const { old } = configs(home);
    const silenced = join(home, "statefulset.yaml");
    writeFileSync(silenced, `${readFileSync(old, "utf8")}silences:\n  - reasons: [CrashLoopBackOff]\n`);
    const run = await runCli(
      ["replay", join(TIMELINES_DIR, "statefulset_crash"), "--config", silenced, "--config", old],
      { home },
    );
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n").slice(-4)).toEqual([
      "  - webhook: announce StatefulSet/tl-statefulset-crash/ledger is told with old.yaml, not with statefulset.yaml (silenced by statefulset.yaml:7)",
      "  - webhook: resolve StatefulSet/tl-statefulset-crash/ledger is told with old.yaml, not with statefulset.yaml (silenced by statefulset.yaml:7)",
      "  webhook: 2 messages with old.yaml, 0 with statefulset.yaml",
      "",
    ]);
  });

  test("a silenced node reboot: the digest that named it is the difference, and the silence is named (issue 41)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mon-reboot-"));
    const at = "2026-06-01T09:01:00Z";
    writeFileSync(
      join(dir, "initial.json"),
      JSON.stringify(["worker-1", "worker-2"].map((n) => readyNode(n, Date.parse("2026-06-01T08:00:00Z")))),
    );
    const reboot = rebootedEvent("worker-1", Date.parse(at), "4abeb0e1-0000-4000-8000-000000000002");
    writeFileSync(join(dir, "events.jsonl"), `${JSON.stringify({ t: 60, type: "ADDED", object: reboot })}\n`);
    const { old } = configs(dir);
    const silenced = join(dir, "reboot.yaml");
    writeFileSync(silenced, `${readFileSync(old, "utf8")}silences:\n  - reasons: [NodeRebooted]\n`);
    const one = await runCli(["replay", dir, "--config", old], { home });
    expect(one.stdout).toMatch(/webhook +announce +Low-priority digest: 1 problem/);
    const diff = await runCli(["replay", dir, "--config", silenced, "--config", old], { home });
    expect(diff.code).toBe(0);
    expect(diff.stdout.split("\n").slice(-3)).toEqual([
      "  - webhook: announce Node//worker-1 in the digest is told with old.yaml, not with reboot.yaml (silenced by reboot.yaml:7)",
      "  webhook: 1 message with old.yaml, 0 with reboot.yaml",
      "",
    ]);
  });

  test("--html writes the incidents page of the replay as one file: the incident, its timeline row, its messages and trace (issue 44)", async () => {
    const { old } = configs(home);
    const page = join(home, "statefulset.html");
    const run = await runCli(["replay", join(TIMELINES_DIR, "statefulset_crash"), "--config", old, "--html", page], {
      home,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`wrote the incidents page to ${page}`);
    const html = readFileSync(page, "utf8");
    expect(html).toContain("mon replay of statefulset_crash with old.yaml");
    expect(html).toContain("Resolved in the last 24 hours (1)");
    // The row links to the incident's page inside the file, which holds its messages and explain trace.
    const link = /<a href="#([^"]+)" class="row" data-incident="StatefulSet\/tl-statefulset-crash\/ledger"/.exec(html);
    expect(link).not.toBeNull();
    expect(html).toContain(`<section class="incident-page" id="${link![1]}">`);
    expect(html).toContain("Messages as sent (2)");
    expect(html).toContain("<code>Pod/tl-statefulset-crash/ledger-1</code>");
    // "Now" is the replay's last event or message, not the half hour it runs on after (issue 54): the resolve
    // reads as just told.
    const resolvedAgo = /<td>[^<]+UTC<\/td><td>([^<]+ UTC)<\/td>/.exec(html)?.[1];
    expect(resolvedAgo).toBeDefined();
    expect(html).toContain(`· at ${resolvedAgo}</p>`);
    expect(html).not.toContain("<script");
    const unwritable = await runCli(
      ["replay", join(TIMELINES_DIR, "statefulset_crash"), "--config", old, "--html", "/nonexistent/dir/page.html"],
      { home },
    );
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toContain("mon replay: /nonexistent/dir/page.html: ENOENT");
  });

  test("bad flags are named", async () => {
    const none = await runCli(["replay", join(TIMELINES_DIR, "statefulset_crash")], { home });
    expect(none.stderr).toBe("mon replay: give --config once (its transcript) or twice (the difference)\n");
    const size = await runCli(["record", "--out", join(home, "x"), "--max-bytes", "lots"], { home });
    expect(size.stderr).toBe('mon record: --max-bytes: "lots" is not a size (e.g. 100MiB, 500MB)\n');
  });
});
