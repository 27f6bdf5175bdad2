import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { LockStatus, Unreachable } from "../../leader/elector.ts";
import type { Message } from "../../model/message.ts";
import { createFakeClock } from "../../runtime/clock.ts";
import { createSilentLogger } from "../../runtime/logger.ts";
import { apiUnreachable } from "../../detect/control-plane.ts";
import { inventoryOf } from "../../testing/inventory.ts";
import { parseConfig } from "../../testing/config.ts";
import { createOutageVoice, outageSuppression } from "./outage.ts";

const T0 = Date.UTC(2026, 11, 3, 2);

/** A voice over an election whose answers the test sets; what it sends is captured. */
function setup(options: { silenced?: boolean; readiness?: string[] } = {}) {
  const clock = createFakeClock(T0);
  const election = {
    status: { name: "mon-leader", namespace: "mon", identity: "mon-a", leading: false, holder: "mon-a" } as LockStatus,
    lastTerm: 3 as number | undefined,
    unreachable: undefined as Unreachable | undefined,
  };
  const sent: Message[] = [];
  let drained = 0;
  const voice = createOutageVoice({
    elector: {
      status: () => election.status,
      lastTerm: () => election.lastTerm,
      unreachable: () => election.unreachable,
    },
    clock,
    logger: createSilentLogger(),
    cluster: () => "prod",
    readiness: async () => options.readiness,
    suppressed: () => (options.silenced ? "silenced" : undefined),
    send: (m) => sent.push(m),
    drain: async () => void (drained += 1),
  });
  return { clock, election, sent, voice, drained: () => drained };
}
const told = (sent: Message[]) => sent.map((m) => [m.action, m.incidentId]);

describe("who tells that the API server cannot be reached (issue 53)", () => {
  test("the last holder tells once a minute of unanswered rounds has passed, once, and resolves the thread when a round is answered", async () => {
    const { clock, election, sent, voice } = setup();
    election.unreachable = { since: T0, error: "connection refused" };
    voice.deposed("pro");
    await clock.advance(55_000);
    expect(sent).toEqual([]);
    await clock.advance(5_000);
    expect(told(sent)).toEqual([["announce", "api-unreachable@3"]]);
    expect(sent[0]!.text).toContain("unreachable since 02:00:00 UTC (1 min): connection refused");
    await clock.advance(10 * 60_000);
    expect(sent).toHaveLength(1);
    election.unreachable = undefined;
    await clock.advance(5_000);
    expect(told(sent)).toEqual([
      ["announce", "api-unreachable@3"],
      ["resolve", "api-unreachable@3"],
    ]);
    expect(sent[1]!.text).toContain("unreachable from 02:00:00 to 02:11:05 UTC");
  });

  test("a standby (the Lease it last read names another), a replica that never led, or one still leading never tells", async () => {
    for (const change of [
      (e: ReturnType<typeof setup>["election"]) => void (e.status = { ...e.status, holder: "mon-b" }),
      (e: ReturnType<typeof setup>["election"]) => void (e.lastTerm = undefined),
      (e: ReturnType<typeof setup>["election"]) => void (e.status = { ...e.status, leading: true }),
    ]) {
      const { clock, election, sent, voice } = setup();
      change(election);
      election.unreachable = { since: T0, error: "no answer within 5 s" };
      voice.deposed("pro");
      await clock.advance(30 * 60_000);
      expect(sent).toEqual([]);
    }
  });

  test("a silence (or scope) that holds the finding back holds the whole outage back; etcd named by /readyz is the reason given", async () => {
    const silenced = setup({ silenced: true });
    silenced.election.unreachable = { since: T0, error: "x" };
    silenced.voice.deposed("community");
    await silenced.clock.advance(30 * 60_000);
    expect(silenced.sent).toEqual([]);
    const etcd = setup({ readiness: ["etcd"] });
    etcd.election.unreachable = { since: T0, error: "no answer within 5 s" };
    etcd.voice.deposed("community");
    await etcd.clock.advance(60_000);
    expect(etcd.sent[0]!.text).toContain("its /readyz reports etcd failing");
  });

  test("leading again resolves what was told at once; stopping resolves it as stopped; both drain the voice's delivery", async () => {
    const a = setup();
    a.election.unreachable = { since: T0, error: "refused" };
    a.voice.deposed("pro");
    await a.clock.advance(60_000);
    await a.voice.close(1_000);
    expect(told(a.sent)).toEqual([
      ["announce", "api-unreachable@3"],
      ["resolve", "api-unreachable@3"],
    ]);
    expect(a.sent[1]!.text).toContain("answers again");
    expect(a.drained()).toBe(1);
    const b = setup();
    b.election.unreachable = { since: T0, error: "refused" };
    b.voice.deposed("pro");
    await b.clock.advance(60_000);
    await b.voice.close(1_000, true);
    expect(b.sent[1]!.text).toContain("mon stopped on prod while the API server did not answer");
    // Closed, it says nothing more whatever the election does.
    await b.clock.advance(10 * 60_000);
    expect(b.sent).toHaveLength(2);
  });

  test("property: over any sequence of answered and unanswered rounds, each outage of a minute or more is one announce then one resolve, a shorter one nothing", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ down: fc.boolean(), seconds: fc.integer({ min: 1, max: 40 }).map((n) => n * 5) }), {
          maxLength: 12,
        }),
        async (steps) => {
          const { clock, election, sent, voice } = setup();
          voice.deposed("pro");
          let expected = 0;
          let since: number | undefined;
          const ended = () => {
            if (since !== undefined && clock.now() - since >= 60_000) expected += 1;
            since = undefined;
          };
          for (const step of steps) {
            if (step.down) {
              since ??= clock.now();
              election.unreachable = { since, error: "refused" };
            } else {
              ended();
              election.unreachable = undefined;
            }
            await clock.advance(step.seconds * 1000);
          }
          ended();
          await voice.close(0);
          const announces = sent.filter((m) => m.action === "announce");
          const resolves = sent.filter((m) => m.action === "resolve");
          expect(announces).toHaveLength(expected);
          expect(resolves.map((m) => m.incidentId)).toEqual(announces.map((m) => m.incidentId));
          for (const [i, m] of sent.entries()) expect(m.action).toBe(i % 2 === 0 ? "announce" : "resolve");
        },
      ),
      { numRuns: 100 },
    );
  });

  test("the configuration as written holds it back: a silence of its reason, `reasons` without it, `namespaces` as an include list", () => {
    const clock = createFakeClock(T0);
    const finding = apiUnreachable({ since: T0 - 60_000, error: "refused" }, T0);
    const held = (yaml: string) =>
      outageSuppression(
        () => parseConfig(yaml, "config.yaml", {}),
        () => inventoryOf(),
        clock,
      )(finding, "pro");
    expect(held("app:\n  clusterName: prod\n")).toBeUndefined();
    expect(held("silences:\n  - reasons: [APIServerUnreachable]\n")).toBe("silenced");
    expect(held("silences:\n  - reasons: [CrashLoopBackOff]\n")).toBeUndefined();
    expect(held("reasons: [CrashLoopBackOff]\n")).toBe("out_of_scope");
    expect(held("reasons: ['!CrashLoopBackOff']\n")).toBeUndefined();
    expect(held("namespaces: [shop]\n")).toBe("out_of_scope");
  });
});
