import { describe, expect, test } from "bun:test";
import type { Dispatch, Outcome } from "../model/dispatch.ts";
import type { Message } from "../model/message.ts";
import { createFakeClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { waitUntil } from "../testing/capture-server.ts";
import { message } from "../testing/messages.ts";
import { backoffMs, RETRY_WINDOW_MS } from "./backoff.ts";
import { createDelivery, type DeliveryProvider, type Sender } from "./delivery.ts";

/** Provider `p` (chat) sending through `sender`. */
const provider = (sender: Sender, name = "p"): DeliveryProvider => ({ name, kind: "chat", sender });

/** A provider stand-in answering from a script and recording what it was sent and when. */
function scripted(outcomes: Outcome[], clock: { now(): number }) {
  const sent: { id: string; at: number; conversation?: string }[] = [];
  const sender: Sender = {
    async send(m, ctx) {
      sent.push({ id: m.id, at: clock.now(), conversation: ctx.conversation });
      return outcomes.shift() ?? { kind: "ok" };
    },
  };
  return { sender, sent };
}

function job(
  m: Message,
  createdAt = 0,
  priority: Dispatch["priority"] = "routine",
  openedResolved?: Message,
): Dispatch {
  return {
    id: `p:${m.id}`,
    provider: "p",
    message: m,
    priority,
    createdAt,
    ...(openedResolved ? { openedResolved } : {}),
  };
}

/** A sender whose first call waits until `release()`, so later jobs pile up in the queue; records message ids in order. */
function gatedSender() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const ids: string[] = [];
  const sender: Sender = {
    async send(m) {
      ids.push(m.id);
      if (ids.length === 1) await gate;
      return { kind: "ok" };
    },
  };
  return { sender, ids, release: () => release() };
}

const noJitter = () => 0.5;

describe("delivery", () => {
  test("Retry-After on a 429 is honoured exactly", async () => {
    const clock = createFakeClock(0);
    const { sender, sent } = scripted([{ kind: "rateLimited", afterMs: 7_000 }], clock);
    const delivery = createDelivery({
      providers: [provider(sender)],
      clock,
      logger: createSilentLogger(),
      random: noJitter,
    });
    delivery.enqueue(job(message("a", "announce")));
    await clock.advance(6_999);
    expect(sent).toHaveLength(1);
    await clock.advance(1);
    expect(sent.map((s) => s.at)).toEqual([0, 7_000]);
  });

  test("a 429 without Retry-After backs off from 5 s doubling, capped at 5 min", () => {
    expect([1, 2, 3, 6, 7, 20].map((n) => backoffMs("rateLimited", n, undefined, noJitter))).toEqual([
      5_000, 10_000, 20_000, 160_000, 300_000, 300_000,
    ]);
    const jittered = [0, 1].map((r) => backoffMs("rateLimited", 1, undefined, () => r));
    expect(jittered).toEqual([4_000, 6_000]);
  });

  test("transient failures are retried for 24 hours, then dropped and reported", async () => {
    const clock = createFakeClock(0);
    const { sender, sent } = scripted(Array(5_000).fill({ kind: "retry", reason: "http_503" }), clock);
    const dropped: string[] = [];
    const delivery = createDelivery({
      providers: [provider(sender)],
      clock,
      logger: createSilentLogger(),
      random: noJitter,
      hooks: { gaveUp: (j, settled) => dropped.push(`${j.message.id}: ${settled.failure} (${settled.detail})`) },
    });
    delivery.enqueue(job(message("a", "announce")));
    await clock.advance(RETRY_WINDOW_MS + 60_000);
    expect(dropped).toEqual(["a#announce: retry_window (http_503)"]);
    expect(sent.length).toBeGreaterThan(2_800); // 1 s doubling to 30 s over 24 h
    expect(sent[sent.length - 1]!.at).toBeLessThanOrEqual(RETRY_WINDOW_MS);
    expect(delivery.depth("p")).toBe(0);
  });

  test("resolves and pages go ahead of routine jobs, but never ahead of an earlier job of their own incident", async () => {
    const clock = createFakeClock(0);
    const { sender, ids: order, release } = gatedSender();
    const delivery = createDelivery({ providers: [provider(sender)], clock, logger: createSilentLogger() });
    delivery.enqueue(job(message("first", "announce")));
    delivery.enqueue(job(message("b", "announce")));
    delivery.enqueue(job(message("c", "update")));
    delivery.enqueue(job(message("a", "resolve"), 0, "urgent"));
    delivery.enqueue(job(message("b", "update", { id: "b#page" }), 0, "urgent"));
    release();
    expect(await delivery.drain(1_000)).toBe(true);
    expect(order).toEqual(["first#announce", "a#resolve", "b#announce", "b#page", "c#update"]);
  });

  test("a permanent rejection is dead-lettered at once, never retried", async () => {
    const clock = createFakeClock(0);
    const { sender, sent } = scripted([{ kind: "permanent", reason: "http_403", failure: "unauthorized" }], clock);
    const delivery = createDelivery({ providers: [provider(sender)], clock, logger: createSilentLogger() });
    delivery.enqueue(job(message("a", "announce")));
    await clock.advance(3_600_000);
    expect(sent).toHaveLength(1);
    const refused = job(message("a", "announce"));
    expect(delivery.deadLetters()).toEqual([
      {
        id: refused.id,
        provider: "p",
        messageId: "a#announce",
        incidentId: "a",
        action: "announce",
        reason: "http_403",
        at: 0,
        job: refused,
      },
    ]);
  });

  test("the outbox age: the oldest message waiting or in flight for a provider, none once delivered", async () => {
    const clock = createFakeClock(0);
    // Refused until the provider comes back: "a" waits out its backoff in flight.
    const down = Array.from({ length: 20 }, () => ({ kind: "retry", reason: "http_503" }) as const);
    const { sender } = scripted([...down], clock);
    const delivery = createDelivery({ providers: [provider(sender)], clock, logger: createSilentLogger() });
    expect(delivery.oldest("p")).toBeUndefined();
    delivery.enqueue(job(message("a", "announce"), 0));
    await clock.advance(1_000);
    delivery.enqueue(job(message("b", "announce"), 1_000));
    expect(delivery.oldest("p")).toBe(0);
    await clock.advance(6 * 3_600_000);
    await delivery.drain(1_000);
    expect(delivery.oldest("p")).toBeUndefined();
  });

  test("a dead letter can be sent again (its retry window starts anew) or forgotten", async () => {
    const clock = createFakeClock(0);
    const { sender, sent } = scripted(
      [{ kind: "permanent", reason: "http_403", failure: "unauthorized" }, { kind: "ok" }],
      clock,
    );
    const delivery = createDelivery({ providers: [provider(sender)], clock, logger: createSilentLogger() });
    delivery.enqueue(job(message("a", "announce")));
    delivery.enqueue(job(message("b", "announce")));
    await clock.advance(60_000);
    const [a] = delivery.deadLetters();
    expect(delivery.deadLetters().map((l) => l.incidentId)).toEqual(["a"]);
    expect(delivery.retryDeadLetter(a!.id!, clock.now())).toBe("queued");
    await delivery.drain(1_000);
    expect(sent.map((m) => m.id)).toEqual(["a#announce", "b#announce", "a#announce"]);
    expect(delivery.deadLetters()).toEqual([]);
    expect(delivery.retryDeadLetter(a!.id!, clock.now())).toBe("missing");
    expect(delivery.deleteDeadLetter(a!.id!)).toBe(false);
  });

  test("the conversation id of an announcement is given to its updates and resolve, then forgotten", async () => {
    const clock = createFakeClock(0);
    const { sender, sent } = scripted([{ kind: "ok", conversation: "1700.01" }], clock);
    const delivery = createDelivery({ providers: [provider(sender)], clock, logger: createSilentLogger() });
    for (const action of ["announce", "update", "resolve"] as const) {
      delivery.enqueue(job(message("a", action)));
      await delivery.drain(1_000);
    }
    expect(sent.map((s) => s.conversation)).toEqual([undefined, "1700.01", "1700.01"]);
    expect(delivery.conversation("p", "a")).toBeUndefined();
  });

  test("a resolve supersedes updates still waiting in the queue", async () => {
    const clock = createFakeClock(0);
    const { sender, ids, release } = gatedSender();
    const delivery = createDelivery({ providers: [provider(sender)], clock, logger: createSilentLogger() });
    delivery.enqueue(job(message("a", "announce")));
    delivery.enqueue(job(message("a", "update")));
    delivery.enqueue(job(message("a", "resolve"), 0, "urgent", message("a", "opened_resolved")));
    release();
    await delivery.drain(1_000);
    expect(ids).toEqual(["a#announce", "a#resolve"]);
  });

  test("a resolve while the announcement still waits in the queue becomes one 'opened and resolved' message", async () => {
    const clock = createFakeClock(0);
    const { sender, ids, release } = gatedSender();
    const delivery = createDelivery({ providers: [provider(sender)], clock, logger: createSilentLogger() });
    delivery.enqueue(job(message("busy", "announce")));
    delivery.enqueue(job(message("a", "announce")));
    delivery.enqueue(job(message("a", "update")));
    delivery.enqueue(job(message("a", "resolve"), 0, "urgent", message("a", "opened_resolved")));
    release();
    await delivery.drain(1_000);
    expect(ids).toEqual(["busy#announce", "a#opened_resolved"]);
  });
});

describe("an announcement that failed with its resolve waiting", () => {
  test("a resolve that arrives while the announcement's request is on its way, which then fails, is one 'opened and resolved' message, with no retry of the announcement", async () => {
    const clock = createFakeClock(0);
    let answer!: (o: Outcome) => void;
    const ids: string[] = [];
    const sender: Sender = {
      async send(m) {
        ids.push(m.id);
        if (ids.length === 1) return new Promise<Outcome>((r) => (answer = r));
        return { kind: "ok" };
      },
    };
    const retried: string[] = [];
    const delivery = createDelivery({
      providers: [provider(sender)],
      clock,
      logger: createSilentLogger(),
      hooks: { retried: (job) => retried.push(job.message.id) },
    });
    delivery.enqueue(job(message("a", "announce")));
    await waitUntil(() => ids.length === 1, "the announcement's request");
    delivery.enqueue(job(message("a", "resolve"), 0, "urgent", message("a", "opened_resolved")));
    answer({ kind: "retry", reason: "http_503" });
    await delivery.drain(1_000);
    expect(ids).toEqual(["a#announce", "a#opened_resolved"]);
    expect(retried).toEqual([]);
    expect(delivery.depth("p")).toBe(0);
  });

  test("an announcement that reached the provider is not combined: the resolve follows it", async () => {
    const clock = createFakeClock(0);
    const { sender, ids, release } = gatedSender();
    const delivery = createDelivery({ providers: [provider(sender)], clock, logger: createSilentLogger() });
    delivery.enqueue(job(message("a", "announce")));
    delivery.enqueue(job(message("a", "resolve"), 0, "urgent", message("a", "opened_resolved")));
    release();
    await delivery.drain(1_000);
    expect(ids).toEqual(["a#announce", "a#resolve"]);
  });
});

describe("an attempt cut short by mon's own stop", () => {
  test("is no provider failure: neither a retry nor a failure is reported, and the job stays for the next process", async () => {
    const clock = createFakeClock(0);
    let answer!: (o: Outcome) => void;
    const sender: Sender = { send: () => new Promise<Outcome>((r) => (answer = r)) };
    const reported: string[] = [];
    const delivery = createDelivery({
      providers: [provider(sender)],
      clock,
      logger: createSilentLogger(),
      hooks: {
        retried: (job) => reported.push(`retried ${job.message.id}`),
        gaveUp: (job) => reported.push(`gave up ${job.message.id}`),
      },
    });
    delivery.enqueue(job(message("a", "announce")));
    await waitUntil(() => answer !== undefined, "the announcement's request");
    delivery.stop();
    // The request fails because the stop aborted it.
    answer({ kind: "retry", reason: "provider_error: aborted" });
    await new Promise((r) => setImmediate(r));
    expect(reported).toEqual([]);
    expect(delivery.depth("p")).toBe(1);
  });
});

describe("the outbox (spec 6, 8)", () => {
  test("every job is written before its first attempt and removed once delivered; the next process resumes what is left", async () => {
    const { openStateStore } = await import("../state/store.ts");
    const { createDeliveryStore } = await import("../state/delivery-store.ts");
    const store = createDeliveryStore(await openStateStore());
    const clock = createFakeClock(0);
    const seenInOutbox: number[] = [];
    const first = createDelivery({
      providers: [
        provider({
          send: async () => {
            seenInOutbox.push((await store.loadJobs()).length);
            return { kind: "retry", reason: "http_503" } as Outcome;
          },
        }),
      ],
      clock,
      logger: createSilentLogger(),
      store,
      random: () => 0.5,
    });
    first.enqueue(job(message("a", "announce")));
    await clock.advance(0);
    await new Promise((r) => setTimeout(r, 5));
    expect(seenInOutbox[0]).toBe(1);
    first.stop();
    // A new process with the same store: the job is sent, then gone from the outbox.
    const { sender, sent } = scripted([], clock);
    const second = createDelivery({ providers: [provider(sender)], clock, logger: createSilentLogger(), store });
    expect(await second.restore()).toBe(1);
    await second.drain(1_000);
    expect(sent.map((s) => s.id)).toEqual(["a#announce"]);
    await new Promise((r) => setTimeout(r, 5));
    expect(await store.loadJobs()).toEqual([]);
  });

  test("a job left over 24 hours is dropped on restore, and counted", async () => {
    const { openStateStore } = await import("../state/store.ts");
    const { createDeliveryStore } = await import("../state/delivery-store.ts");
    const store = createDeliveryStore(await openStateStore());
    await store.saveJob(job(message("old", "announce"), 0));
    const clock = createFakeClock(RETRY_WINDOW_MS + 1);
    const expired: string[] = [];
    const { sender, sent } = scripted([], clock);
    const delivery = createDelivery({
      providers: [provider(sender)],
      clock,
      logger: createSilentLogger(),
      store,
      hooks: { pendingDropped: (j, why) => why === "expired" && expired.push(j.id) },
    });
    expect(await delivery.restore()).toBe(0);
    expect(expired).toEqual(["p:old#announce"]);
    expect(sent).toEqual([]);
  });

  test("a full outbox drops its oldest routine job to make room, never a resolve", async () => {
    const clock = createFakeClock(0);
    const { sender, ids, release } = gatedSender();
    const saturated: string[] = [];
    const delivery = createDelivery({
      providers: [provider(sender)],
      clock,
      logger: createSilentLogger(),
      maxJobs: 3,
      hooks: { pendingDropped: (j, why) => why === "outbox_full" && saturated.push(j.message.id) },
    });
    delivery.enqueue(job(message("first", "announce"), 0));
    await new Promise((r) => setTimeout(r, 1));
    delivery.enqueue(job(message("r", "resolve"), 1, "urgent"));
    delivery.enqueue(job(message("b", "announce"), 2));
    delivery.enqueue(job(message("c", "announce"), 3));
    delivery.enqueue(job(message("d", "announce"), 4));
    expect(saturated).toEqual(["b#announce"]);
    release();
    await delivery.drain(1_000);
    expect(ids).toEqual(["first#announce", "r#resolve", "c#announce", "d#announce"]);
  });
});

describe("dead letters", () => {
  test("the provider's answer is kept with credentials removed", async () => {
    const clock = createFakeClock(0);
    const { sender } = scripted(
      [{ kind: "permanent", reason: "http_400: bad token xoxb-1234567890-abcdefghij in request", failure: "rejected" }],
      clock,
    );
    const delivery = createDelivery({
      providers: [provider(sender)],
      clock,
      logger: createSilentLogger(),
      clean: (t) => t.replace(/xoxb-[\w-]+/g, "[redacted]"),
    });
    delivery.enqueue(job(message("a", "announce")));
    await delivery.drain(1_000);
    expect(delivery.deadLetters().map((l) => l.reason)).toEqual(["http_400: bad token [redacted] in request"]);
  });
});

describe("the pipeline's other stages: budget, overflow digests, fallback (spec 6 items 3, 5)", () => {
  test("submit: the hourly budget folds what is over it; paging tools get no overflow digest", async () => {
    const clock = createFakeClock(0);
    const chat = scripted([], clock);
    const pager = scripted([], clock);
    const folded: string[] = [];
    const delivery = createDelivery({
      providers: [
        { name: "slack", kind: "chat", sender: chat.sender, hourlyBudget: 1 },
        { name: "pagerDuty", kind: "paging", sender: pager.sender, hourlyBudget: 1 },
      ],
      clock,
      logger: createSilentLogger(),
      hooks: { folded: (j) => folded.push(j.id) },
    });
    const both = (m: Message) => ["slack", "pagerDuty"].map((p) => ({ ...job(m), id: `${p}:${m.id}`, provider: p }));
    delivery.submit(both(message("a", "announce")), 0);
    delivery.submit(both(message("b", "announce")), 1);
    await delivery.drain(1_000);
    expect(chat.sent.map((s) => s.id)).toEqual(["a#announce"]);
    expect(folded).toEqual(["slack:b#announce", "pagerDuty:b#announce"]);
    expect(delivery.nextOverflowAt()).toBe(1 + 10 * 60_000);
    const rendered: string[] = [];
    const { sent, skipped } = await delivery.sendOverflow(1 + 10 * 60_000, async (o) => {
      rendered.push(o.provider);
      return {
        ...job(message(`overflow-${o.provider}`, "announce")),
        id: `${o.provider}:overflow`,
        provider: o.provider,
      };
    });
    expect(rendered).toEqual(["slack"]);
    expect(sent).toBe(1);
    expect(skipped).toEqual(["pagerDuty"]);
  });

  test("a permanent failure goes to the fallback, which joins the conversation; never twice to the same provider", async () => {
    const clock = createFakeClock(0);
    const slack = scripted([{ kind: "permanent", reason: "http_401: invalid_auth", failure: "unauthorized" }], clock);
    const webhook = scripted([], clock);
    const events: string[] = [];
    const delivery = createDelivery({
      providers: [
        { name: "slack", kind: "chat", sender: slack.sender, fallback: "webhook" },
        { name: "webhook", kind: "info", sender: webhook.sender },
      ],
      clock,
      logger: createSilentLogger(),
      onJoin: (id, p) => events.push(`join ${id} ${p}`),
      hooks: {
        rejected: (j, _l, f) => events.push(`rejected ${j.provider} ${f.failure}`),
        handedOver: (j, to, send) => events.push(`handed ${j.provider} → ${to} ${send}`),
        lost: (j, f) => events.push(`lost ${j.provider} ${f}`),
      },
    });
    const a = message("a", "announce");
    delivery.enqueue({ ...job(a), id: `slack:${a.id}`, provider: "slack" });
    await delivery.drain(1_000);
    expect(webhook.sent.map((s) => s.id)).toEqual(["a#announce"]);
    expect(events).toEqual([
      "rejected slack unauthorized",
      "handed slack → webhook true",
      `join ${a.incidentId} webhook`,
    ]);
    // The webhook got this message already: a second failure of the same message is not sent there again.
    const slackAgain = scripted([{ kind: "permanent", reason: "http_400", failure: "rejected" }], clock);
    const again = createDelivery({
      providers: [
        { name: "slack", kind: "chat", sender: slackAgain.sender, fallback: "webhook" },
        { name: "webhook", kind: "info", sender: webhook.sender },
      ],
      clock,
      logger: createSilentLogger(),
      hooks: { handedOver: (_j, to, send) => events.push(`again → ${to} ${send}`) },
    });
    again.enqueue({ ...job(a), id: `webhook:${a.id}`, provider: "webhook" });
    again.enqueue({ ...job(a), id: `slack:${a.id}`, provider: "slack" });
    await again.drain(1_000);
    expect(events.at(-1)).toBe("again → webhook false");
    expect(webhook.sent.map((s) => s.id)).toEqual(["a#announce", "a#announce"]);
  });

  test("retry.maxAttempts gives up after that many attempts; retry.delay replaces the backoff", async () => {
    const clock = createFakeClock(0);
    const { sender, sent } = scripted(Array(5).fill({ kind: "retry", reason: "http_503" }), clock);
    const gaveUp: string[] = [];
    const delivery = createDelivery({
      providers: [{ ...provider(sender), retry: { maxAttempts: 3, delayMs: 7_000 } }],
      clock,
      logger: createSilentLogger(),
      hooks: { gaveUp: (_j, s) => gaveUp.push(`${s.failure} after ${s.attempts} (${s.last.failure})`) },
    });
    delivery.enqueue(job(message("a", "announce")));
    await waitForSent(sent, 1);
    await clock.advance(7_000);
    await waitForSent(sent, 2);
    await clock.advance(7_000);
    await delivery.drain(1_000);
    expect(sent.map((s) => s.at)).toEqual([0, 7_000, 14_000]);
    expect(gaveUp).toEqual(["retries_exhausted after 3 (server_error)"]);
  });
});

/** Waits (on the event loop, not the clock) until `sent` has `n` entries. */
async function waitForSent(sent: readonly unknown[], n: number): Promise<void> {
  for (let i = 0; i < 10_000 && sent.length < n; i++) await Promise.resolve();
  expect(sent.length).toBeGreaterThanOrEqual(n);
}
