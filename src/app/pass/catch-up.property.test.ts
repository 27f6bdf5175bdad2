import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { HEARTBEAT_GAP_HOLD_MS, NODE_CATCH_UP_MS } from "../../detect/nodes.ts";
import { emptyLifecycle, type LifecycleState } from "../../incident/lifecycle.ts";
import type { Absence } from "../../model/absence.ts";
import type { KubeObject } from "../../model/inventory.ts";
import type { Message } from "../../model/message.ts";
import { inventoryOf, node, pod, workload } from "../../testing/inventory.ts";
import { runPass } from "./pipeline.ts";

/**
 * The control plane's catch-up (issue 53): while the API server or etcd is away no kubelet's heartbeat can be
 * written, and once it is back the node lifecycle controller marks Unknown every node whose heartbeat has not
 * landed yet — one node or several, while the control plane is away or up to a node grace after it returns, in
 * any order with the kubelets' next heartbeats. A node whose heartbeat lands within the hold is told nothing of;
 * one that stays lost is told once, a hold after its loss.
 */
const A = Date.parse("2026-01-01T01:00:00Z");
const PASS_MS = 5_000;
const iso = (ms: number) => new Date(ms).toISOString();

interface NodeLife {
  /** When the controller marks it Unknown, ms after the outage's start. */
  readonly lostAt: number;
  /** How long after that its kubelet's heartbeat lands (Ready again), ms; undefined: it stays lost. */
  readonly backAfter: number | undefined;
}

const outageArb = fc.integer({ min: 5_000, max: 150_000 });
/** A node's loss: while the control plane is away or within a node grace of its return (`end` the outage's length). */
const lifeArb = (end: number, heals: boolean) =>
  fc.record({
    lostAt: fc.integer({ min: 0, max: end + NODE_CATCH_UP_MS }),
    backAfter: heals ? fc.integer({ min: 1_000, max: HEARTBEAT_GAP_HOLD_MS - PASS_MS }) : fc.constant(undefined),
  });

/** The cluster as mon sees it at `seen` (epoch ms): nodes n<i> with their lives, one web pod on each. */
function clusterAt(lives: readonly (NodeLife | undefined)[], seen: number): KubeObject[] {
  const { deployment, replicaSet } = workload("shop", "web", lives.length);
  return [
    deployment,
    replicaSet,
    ...lives.flatMap((life, i) => {
      const lost = life !== undefined && A + life.lostAt <= seen;
      const back = lost && life.backAfter !== undefined && A + life.lostAt + life.backAfter <= seen;
      const state = !lost
        ? node(`n${i}`, "True", iso(A - 3_600_000))
        : back
          ? node(`n${i}`, "True", iso(A + life.lostAt + life.backAfter!))
          : node(`n${i}`, "Unknown", iso(A + life.lostAt));
      return [state, pod("shop", `web-${i}`, { nodeName: `n${i}`, owner: replicaSet })];
    }),
  ];
}

/** Passes every 5 s from before the outage to well after every hold; what was sent, with when. */
function tell(lives: readonly (NodeLife | undefined)[], outageMs: number): { at: number; message: Message }[] {
  const end = A + outageMs;
  const last = Math.max(end, ...lives.map((l) => A + (l?.lostAt ?? 0))) + HEARTBEAT_GAP_HOLD_MS + 120_000;
  let state: LifecycleState = emptyLifecycle();
  const sent: { at: number; message: Message }[] = [];
  for (let at = A - 30_000; at <= last; at += PASS_MS) {
    // While the control plane is away mon sees nothing new (what was there before it went); its absence is what
    // its election saw.
    const seen = at < A ? at : at < end ? A - 1 : at;
    const away: Absence | undefined = at < A ? undefined : at < end ? { from: A } : { from: A, to: end };
    const usage = away ? { controlPlaneAway: away } : {};
    const result = runPass(inventoryOf(...clusterAt(lives, seen)), state, at, "prod", usage);
    expect(result.panicked).toBeUndefined();
    sent.push(...result.messages.map(({ message }) => ({ at, message })));
    state = result.state;
  }
  return sent;
}

const about = (m: Message, name: string) =>
  m.root.name === name || m.findings.some((f) => f.object.kind === "Node" && f.object.name === name);

describe("the control plane's catch-up is not told as node losses (issue 53)", () => {
  test("property: nodes marked lost as the control plane comes back, whose heartbeats land within the hold, are told nothing of — in any order of returns", () => {
    fc.assert(
      fc.property(
        outageArb.chain((outage) =>
          fc.tuple(
            fc.constant(outage),
            fc.array(fc.option(lifeArb(outage, true), { nil: undefined }), { minLength: 1, maxLength: 6 }),
          ),
        ),
        ([outage, lives]) => {
          const sent = tell(lives, outage);
          expect(sent.map(({ at, message }) => `+${(at - A) / 1000} s ${message.title}`)).toEqual([]);
        },
      ),
      { numRuns: 120 },
    );
  });

  test("property: a node still lost after the hold is told once, as itself, a hold after its loss; the others nothing", () => {
    fc.assert(
      fc.property(
        outageArb.chain((outage) =>
          fc.tuple(
            fc.constant(outage),
            lifeArb(outage, false),
            fc.array(fc.option(lifeArb(outage, true), { nil: undefined }), { minLength: 2, maxLength: 5 }),
          ),
        ),
        ([outage, stays, others]) => {
          const lives = [stays, ...others];
          const sent = tell(lives, outage);
          const announced = sent.filter(({ message }) => message.action === "announce");
          expect(announced.map(({ message }) => message.root.name)).toEqual(["n0"]);
          for (let i = 1; i < lives.length; i++)
            expect(sent.filter(({ message }) => about(message, `n${i}`)).map((s) => s.message.title)).toEqual([]);
          // Seen once the control plane is back, told a hold after the loss (the next pass).
          const due = Math.max(A + stays.lostAt + HEARTBEAT_GAP_HOLD_MS, A + outage);
          expect(announced[0]!.at).toBeGreaterThanOrEqual(due);
          expect(announced[0]!.at).toBeLessThan(due + PASS_MS);
        },
      ),
      { numRuns: 120 },
    );
  });

  test("without an absence of the control plane a node lost alone is told at once (the hold is the catch-up's only)", () => {
    const lives = [{ lostAt: 0, backAfter: undefined }, undefined, undefined];
    const result = runPass(inventoryOf(...clusterAt(lives, A)), emptyLifecycle(), A, "prod", {});
    expect(result.messages.map(({ message: m }) => [m.action, m.root.name])).toEqual([["announce", "n0"]]);
  });
});
