import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDatabase } from "db0";
import { sqliteConnector } from "../runtime/sqlite.ts";
import { createDeliveryStore } from "./delivery-store.ts";
import { compactStore } from "./compaction.ts";
import { openStateStore } from "./store.ts";
import { message } from "../testing/messages.ts";

const dir = () => mkdtempSync(join(tmpdir(), "mon-state-"));

describe("state store (spec 1.9, 9.2)", () => {
  test("Pro's file keeps what was written across a close and reopen; Community's memory store does not persist", async () => {
    const d = dir();
    const a = await openStateStore({ dataDir: d });
    expect(a.persistent).toBe(true);
    await a.set("outbox:x", { id: "x", n: 1 });
    await a.close();
    const b = await openStateStore({ dataDir: d });
    expect(await b.get("outbox:x")).toEqual({ id: "x", n: 1 });
    expect(await b.keys("outbox")).toEqual(["outbox:x"]);
    await b.close();
    expect((await openStateStore()).persistent).toBe(false);
  });

  test("an unreadable file is set aside as state.db.corrupt and a fresh one is created", async () => {
    const d = dir();
    writeFileSync(join(d, "state.db"), "not a database at all ".repeat(200));
    const resets: string[] = [];
    const store = await openStateStore({ dataDir: d, hooks: { reset: (reason) => resets.push(reason) } });
    expect(resets).toEqual(["unreadable"]);
    expect(existsSync(join(d, "state.db.corrupt"))).toBe(true);
    expect(await store.set("k", { v: 1 })).toBe(true);
    expect(await store.get("k")).toEqual({ v: 1 });
    await store.close();
  });

  test("a file of another schema version is set aside too", async () => {
    const d = dir();
    const db = createDatabase(await sqliteConnector(join(d, "state.db")));
    await db.exec("CREATE TABLE mon_meta (key TEXT PRIMARY KEY, value TEXT)");
    await db.exec("INSERT INTO mon_meta (key, value) VALUES ('schema', '99')");
    await db.dispose();
    const resets: string[] = [];
    const store = await openStateStore({ dataDir: d, hooks: { reset: (reason) => resets.push(reason) } });
    expect(resets).toEqual(["schema_mismatch"]);
    expect(readdirSync(d).filter((f) => f.startsWith("state.db.corrupt"))).toContain("state.db.corrupt");
    await store.close();
  });
});

describe("delivery records (spec 6)", () => {
  test("jobs, conversation ids and dead letters round-trip; an undecodable record is skipped and reported", async () => {
    const d = dir();
    const store = await openStateStore({ dataDir: d });
    const corrupt: string[] = [];
    const records = createDeliveryStore(store, { corrupt: (k) => corrupt.push(k) });
    const job = {
      id: "webhook:Deployment/shop/api#1",
      provider: "webhook",
      message: message("Deployment/shop/api", "announce"),
      priority: "routine" as const,
      createdAt: 5,
    };
    await records.saveJob(job);
    await records.saveJob({ ...job, id: "webhook:Deployment/shop/web#1", createdAt: 1 });
    await records.saveConversation("slack", "Deployment/shop/api", "1001.000100");
    await records.saveDeadLetter({
      provider: "slack",
      messageId: "m1",
      incidentId: "Deployment/shop/api",
      action: "announce",
      reason: "http_401: invalid_auth",
      at: 7,
    });
    await store.set("outbox:garbage", "not a job");
    expect((await records.loadJobs()).map((j) => j.id)).toEqual([
      "webhook:Deployment/shop/web#1",
      "webhook:Deployment/shop/api#1",
    ]);
    expect(corrupt).toEqual(["outbox:garbage"]);
    expect(await records.loadConversations()).toEqual([
      { provider: "slack", incidentId: "Deployment/shop/api", conversation: "1001.000100" },
    ]);
    expect((await records.loadDeadLetters()).map((l) => l.reason)).toEqual(["http_401: invalid_auth"]);
    await records.removeJob(job.id);
    expect((await records.loadJobs()).map((j) => j.id)).toEqual(["webhook:Deployment/shop/web#1"]);
    await store.close();
  });

  test("over its size cap, the oldest dead letters are evicted; the outbox never is, and keeps it over the cap", async () => {
    const d = dir();
    const store = await openStateStore({ dataDir: d });
    const records = createDeliveryStore(store);
    const big = "x".repeat(4000);
    for (let i = 0; i < 60; i++)
      await records.saveDeadLetter({
        provider: "slack",
        messageId: `m${i}`,
        incidentId: "i",
        action: "announce",
        reason: big,
        at: i,
      });
    const before = (await store.size()).fileBytes;
    const report = await compactStore(store, before / 2);
    expect(report.evicted).toBeGreaterThan(0);
    expect(report.fileBytes).toBeLessThanOrEqual(before / 2);
    expect(report.overCap).toBe(false);
    const kept = (await records.loadDeadLetters()).map((l) => l.messageId);
    expect(kept).toContain("m59");
    expect(kept).not.toContain("m0");
    for (let i = 0; i < 60; i++)
      await records.saveJob({
        id: `webhook:j${i}`,
        provider: "webhook",
        message: { ...message(`j${i}`, "announce"), text: big },
        priority: "routine",
        createdAt: i,
      });
    const full = await compactStore(store, 1024);
    expect(full.overCap).toBe(true);
    expect(await records.loadJobs()).toHaveLength(60);
    await store.close();
  });
});

describe("retention", () => {
  test("conversation ids older than 30 days are forgotten, and counted", async () => {
    const store = await openStateStore();
    let now = 0;
    const expired: string[] = [];
    const records = createDeliveryStore(store, { expired: (k) => expired.push(k) }, () => now);
    await records.saveConversation("slack", "old", "1.1");
    now = 20 * 86_400_000;
    await records.saveConversation("slack", "recent", "2.2");
    now = 31 * 86_400_000;
    expect((await records.loadConversations()).map((c) => c.incidentId)).toEqual(["recent"]);
    expect(expired).toHaveLength(1);
  });
});

describe("routes", () => {
  test("the providers of a conversation round-trip and expire with conversation ids", async () => {
    const store = await openStateStore();
    let now = 0;
    const records = createDeliveryStore(store, {}, () => now);
    await records.saveRoute("Deployment/shop/api", ["slack", "pagerDuty"]);
    await records.saveRoute("old", ["slack"]);
    await records.removeRoute("old");
    expect(await records.loadRoutes()).toEqual([["Deployment/shop/api", ["slack", "pagerDuty"]]]);
    now = 31 * 86_400_000;
    expect(await records.loadRoutes()).toEqual([]);
  });
});
