import { afterEach, describe, expect, test } from "bun:test";
import { connectKube } from "../kube/connection.ts";
import { type Clock, createFakeClock, type FakeClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { startSimulator, type Simulator } from "../sim/simulator.ts";
import { waitUntil } from "../testing/capture-server.ts";
import { decideLock } from "./decide.ts";
import { createElector, type Elector } from "./elector.ts";

const T0 = Date.UTC(2026, 5, 1);
let sim: Simulator | undefined;
const electors: Elector[] = [];
afterEach(async () => {
  for (const e of electors.splice(0)) e.stop();
  await sim?.stop();
  sim = undefined;
});

async function elector(clock: Clock, identity: string, onLost?: () => void): Promise<Elector> {
  if (!sim) throw new Error("no simulator");
  const e = createElector({
    connection: await connectKube({ kubeconfigText: sim.kubeconfig() }),
    namespace: "mon",
    name: "mon-leader",
    identity,
    clock,
    logger: createSilentLogger(),
    ...(onLost ? { onLost } : {}),
  });
  electors.push(e);
  return e;
}

/** Moves the clock one retry period (2 s) at a time; each step waits until every running elector's round is done. */
async function run(clock: FakeClock, ms: number, ...es: Elector[]) {
  for (let t = 0; t < ms; t += 2_000) {
    const before = es.map((e) => e.rounds());
    await clock.advance(2_000);
    await waitUntil(() => es.every((e, i) => e.rounds() > before[i]!), "every elector's round");
  }
}

/** The first round of a new elector has run. */
const started = (e: Elector) => waitUntil(() => e.rounds() > 0, "the first round");

async function world() {
  const clock = createFakeClock(T0);
  sim = await startSimulator({ now: () => clock.now() });
  sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "mon" } });
  return clock;
}

const lease = () => sim!.store.get(sim!.typeOf("coordination.k8s.io", "v1", "leases"), "mon", "mon-leader");

describe("the state lock: a Lease with client-go's leader election", () => {
  test("one replica leads; the other waits while the leader renews", async () => {
    const clock = await world();
    const a = await elector(clock, "mon-a");
    await started(a);
    await a.leading();
    const b = await elector(clock, "mon-b");
    await started(b);
    await run(clock, 60_000, a, b);
    expect(a.status()).toMatchObject({ leading: true, term: 0 });
    expect(b.status()).toMatchObject({ leading: false, holder: "mon-a" });
    expect(lease().spec).toMatchObject({ holderIdentity: "mon-a", leaseDurationSeconds: 15, leaseTransitions: 0 });
  });

  test("a leader that dies without releasing: the standby takes over after the lease duration, term 1", async () => {
    const clock = await world();
    const a = await elector(clock, "mon-a");
    await started(a);
    await a.leading();
    const b = await elector(clock, "mon-b");
    await started(b);
    await run(clock, 4_000, a, b);
    a.stop();
    const stoppedAt = clock.now();
    let tookOver: number | undefined;
    void b.leading().then(() => (tookOver = clock.now()));
    for (let i = 0; i < 15 && tookOver === undefined; i++) await run(clock, 2_000, b);
    expect(tookOver).toBeDefined();
    // Lease duration (15 s) plus at most two retry periods (2 s each).
    expect(tookOver! - stoppedAt).toBeGreaterThanOrEqual(15_000);
    expect(tookOver! - stoppedAt).toBeLessThanOrEqual(19_000);
    expect(b.status()).toMatchObject({ leading: true, term: 1 });
    expect(lease().spec.leaseTransitions).toBe(1);
  });

  test("release hands over at once: the standby watches the Lease and takes it without waiting for its retry period", async () => {
    const clock = await world();
    const a = await elector(clock, "mon-a");
    await started(a);
    await a.leading();
    const b = await elector(clock, "mon-b");
    await started(b);
    await run(clock, 4_000, a, b);
    const releasedAt = clock.now();
    await a.release();
    // No fake time passes: the release event alone makes the standby try, and it wins.
    await waitUntil(() => b.status().leading, "the standby to lead");
    expect(clock.now()).toBe(releasedAt);
    expect(lease().spec).toMatchObject({ holderIdentity: "mon-b", leaseTransitions: 1 });
  });

  test("a replica whose wall clock runs an hour ahead cannot steal a lease that is being renewed", async () => {
    const clock = await world();
    const ahead: Clock = { ...clock, now: () => clock.now() + 3_600_000, monotonic: () => clock.now() };
    const a = await elector(clock, "mon-a");
    await started(a);
    await a.leading();
    const b = await elector(ahead, "mon-b");
    await started(b);
    await run(clock, 60_000, a, b);
    expect(b.status().leading).toBe(false);
    expect(lease().spec.holderIdentity).toBe("mon-a");
  });

  test("a leader cut off from the API server steps down before its lease can expire for the others", async () => {
    const clock = await world();
    let lostAt: number | undefined;
    const a = await elector(clock, "mon-a", () => (lostAt = clock.now()));
    await a.leading();
    const lastRenewal = a.status().renewedAt!;
    sim!.failResource("coordination.k8s.io/leases", 503);
    for (let i = 0; i < 10 && lostAt === undefined; i++) await run(clock, 2_000, a);
    expect(lostAt).toBeDefined();
    // After the renew deadline (10 s), well before the 15 s lease ends for the others.
    expect(lostAt! - lastRenewal).toBeGreaterThan(10_000);
    expect(lostAt! - lastRenewal).toBeLessThan(15_000);
    expect(a.holds(0)).toBe(false);
  });
});

describe("what the election's answers say of the API server (issue 53: who tells an outage)", () => {
  test("a streak of 5xx or 429 answers is unreachable since its first round; any other answer ends it; the last term held is kept", async () => {
    const clock = await world();
    const a = await elector(clock, "mon-a");
    await a.leading();
    expect(a.unreachable()).toBeUndefined();
    expect(a.away()).toBeUndefined();
    expect(a.lastTerm()).toBe(0);
    const first = clock.now() + 2_000;
    sim!.failResource("coordination.k8s.io/leases", 503);
    await run(clock, 4_000, a);
    expect(a.unreachable()).toEqual({ since: first, error: expect.stringContaining("HTTP 503") });
    // The control plane's absence, as the pass reads it: ongoing.
    expect(a.away()).toEqual({ from: first });
    sim!.failResource("coordination.k8s.io/leases", 429);
    await run(clock, 12_000, a);
    // The same streak (its first round), the last error; the lock lost meanwhile, its term remembered.
    expect(a.unreachable()).toEqual({ since: first, error: expect.stringContaining("HTTP 429") });
    expect(a.status().leading).toBe(false);
    expect(a.lastTerm()).toBe(0);
    // Refused by authorization is an answer: the server is there.
    sim!.failResource("coordination.k8s.io/leases", 403);
    await run(clock, 2_000, a);
    expect(a.unreachable()).toBeUndefined();
    // Ended at the first round answered again, and remembered after.
    const answered = clock.now();
    expect(a.away()).toEqual({ from: first, to: answered });
    sim!.failResource("coordination.k8s.io/leases", 500);
    await run(clock, 2_000, a);
    expect(a.unreachable()?.since).toBe(clock.now());
    const second = clock.now();
    sim!.failResource("coordination.k8s.io/leases", undefined);
    await run(clock, 2_000, a);
    expect(a.unreachable()).toBeUndefined();
    expect(a.away()).toEqual({ from: second, to: clock.now() });
  });
});

describe("decideLock (pure)", () => {
  const base = { identity: "me", observedAt: 0, monotonicNow: 0, now: T0 };
  test("creates an absent Lease; renews its own; waits on a fresh one; takes over an expired or released one", () => {
    expect(decideLock({ ...base, observed: undefined }).kind).toBe("create");
    expect(decideLock({ ...base, observed: { holderIdentity: "me", leaseTransitions: 3 } })).toMatchObject({
      kind: "update",
      record: { leaseTransitions: 3 },
    });
    const other = { holderIdentity: "you", leaseDurationSeconds: 15, leaseTransitions: 3 };
    expect(decideLock({ ...base, observed: other, monotonicNow: 15_000 }).kind).toBe("wait");
    expect(decideLock({ ...base, observed: other, monotonicNow: 15_001 })).toMatchObject({
      kind: "update",
      record: { holderIdentity: "me", leaseTransitions: 4 },
    });
    expect(decideLock({ ...base, observed: { ...other, holderIdentity: "" } }).kind).toBe("update");
  });

  test("a Lease under this identity that this process does not hold (its pod's killed container's) is a new term at once", () => {
    const mine = { holderIdentity: "me", leaseDurationSeconds: 15, leaseTransitions: 3, acquireTime: "then" };
    expect(decideLock({ ...base, observed: mine, holding: false })).toMatchObject({
      kind: "update",
      record: { holderIdentity: "me", leaseTransitions: 4 },
    });
    expect(decideLock({ ...base, observed: mine, holding: true })).toMatchObject({
      kind: "update",
      record: { leaseTransitions: 3, acquireTime: "then" },
    });
  });
});

describe("the Lease's owner", () => {
  test("in-cluster, the Lease is owned by mon's ServiceAccount (removed with the installation); never across namespaces", async () => {
    const clock = await world();
    for (const [namespace, owned] of [
      ["mon", true],
      ["elsewhere", false],
    ] as const) {
      sim!.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
      const connection = await connectKube({ kubeconfigText: sim!.kubeconfig() });
      const e = createElector({
        connection: { ...connection, serviceAccount: () => ({ namespace: "mon", name: "mon", uid: "sa-uid" }) },
        namespace,
        name: "owned-leader",
        identity: "mon-a",
        clock,
        logger: createSilentLogger(),
      });
      electors.push(e);
      await e.leading();
      const written = sim!.store.get(sim!.typeOf("coordination.k8s.io", "v1", "leases"), namespace, "owned-leader") as {
        metadata: { ownerReferences?: unknown[] };
      };
      expect(written.metadata.ownerReferences).toEqual(
        owned ? [{ apiVersion: "v1", kind: "ServiceAccount", name: "mon", uid: "sa-uid" }] : undefined,
      );
    }
  });
});
