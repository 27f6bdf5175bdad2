import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AuditEntry } from "../model/audit.ts";
import { createAuditLog } from "./log.ts";

function entry(n: number): AuditEntry {
  return {
    time: new Date(n * 1000).toISOString(),
    cluster: "prod",
    decision: "announced",
    delivery: "absent",
    incidentId: `Deployment/shop/app${n}`,
    root: { kind: "Deployment", namespace: "shop", name: `app${n}` },
    reason: "CrashLoopBackOff",
    tier: "medium",
    mode: "notify",
    revision: 1,
    dedupKey: `mon-prod-deployment-shop-app${n}-notify`,
    findings: 1,
    news: [],
  };
}
const lines = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as AuditEntry);

describe("audit log (spec 2.1 auditLog, spec 6)", () => {
  test("stdout: one JSON line per entry", () => {
    const out: string[] = [];
    const log = createAuditLog({ output: "stdout", stdout: (l) => out.push(l), hooks: { dropped: () => {} } });
    log.write(entry(1));
    expect(out).toEqual([`${JSON.stringify(entry(1))}\n`]);
  });

  test("a file is appended in order and renamed to <path>.1 before it passes its bound, replacing the old backup", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "mon-audit-")), "audit.jsonl");
    const lineBytes = JSON.stringify(entry(10)).length + 1;
    const log = createAuditLog({
      output: path,
      stdout: () => {},
      hooks: { dropped: () => {} },
      maxBytes: lineBytes * 4,
    });
    for (let n = 10; n < 20; n++) log.write(entry(n));
    await log.flush();
    // 10 entries, 4 per file: 10-13 rotated away, 14-17 in the backup, 18-19 current.
    expect(lines(`${path}.1`).map((e) => e.incidentId)).toEqual([14, 15, 16, 17].map((n) => `Deployment/shop/app${n}`));
    expect(lines(path).map((e) => e.incidentId)).toEqual(["Deployment/shop/app18", "Deployment/shop/app19"]);
    expect(statSync(path).size).toBeLessThanOrEqual(lineBytes * 4);
  });

  test("a full queue drops and counts; an unwritable file drops, counts and says why, then recovers", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mon-audit-"));
    const dropped: string[] = [];
    const log = createAuditLog({
      output: join(dir, "audit.jsonl"),
      stdout: () => {},
      hooks: { dropped: (n, why) => dropped.push(`${n} ${why}`) },
      maxQueued: 2,
    });
    for (let n = 0; n < 5; n++) log.write(entry(n));
    await log.flush();
    expect(dropped.filter((d) => d.endsWith("queue_full")).length).toBeGreaterThan(0);

    // A regular file where the directory should be: the write fails, even for root.
    const blocker = join(dir, "blocker");
    writeFileSync(blocker, "");
    const failing = createAuditLog({
      output: join(blocker, "audit.jsonl"),
      stdout: () => {},
      hooks: { dropped: (n, why) => dropped.push(`${n} ${why}`) },
    });
    failing.write(entry(1));
    await failing.flush();
    expect(dropped).toContain("1 write_failed");
    rmSync(blocker);
    mkdirSync(blocker);
    failing.write(entry(2));
    await failing.flush();
    expect(lines(join(blocker, "audit.jsonl")).map((e) => e.incidentId)).toEqual(["Deployment/shop/app2"]);
  });
});
