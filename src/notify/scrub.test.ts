import { describe, expect, test } from "bun:test";
import { secretLintProfiler } from "@secretlint/profiler";
import type { Message } from "../model/message.ts";
import { HARMLESS_SHAPES, SECRET_SHAPES } from "../redact/testdata/corpus.ts";
import { message } from "../testing/messages.ts";
import { scrubMessage, scrubText } from "./scrub.ts";

describe("scrubText: mon's rules, then secretlint's recommended rules as a second net (spec 6.8)", () => {
  test("removes every credential shape of the corpus and keeps every look-alike", async () => {
    const leaks: string[] = [];
    for (const s of SECRET_SHAPES) {
      const { text } = await scrubText(`error while connecting: ${s.text} (retrying)`);
      if (text.includes(s.secret.slice(0, 8)) || text.includes(s.secret.slice(-8))) leaks.push(s.name);
    }
    expect(leaks).toEqual([]);
    for (const h of HARMLESS_SHAPES) expect(await scrubText(h.text)).toEqual({ text: h.text, count: 0 });
  });

  test("a connection string keeps its host and database; only the password goes", async () => {
    const { text } = await scrubText(
      "dial tcp 10.96.14.7:5432: connect: connection refused (postgres://checkout:s3cret@orders-db.shop:5432/orders)",
    );
    expect(text).toBe(
      "dial tcp 10.96.14.7:5432: connect: connection refused (postgres://checkout:[redacted]@orders-db.shop:5432/orders)",
    );
  });

  test("20,000 scrubs leave no timing marks behind: secretlint's profiler is off, so each scrub costs the same", async () => {
    const marks = () => performance.getEntriesByType("mark").length;
    const before = marks();
    for (let i = 0; i < 20_000; i++) await scrubText(`exit 1: connecting to db ${i} failed, password=hunter${i}`);
    expect(secretLintProfiler.isEnabled).toBe(false);
    expect(await secretLintProfiler.getEntries()).toHaveLength(0);
    expect(marks()).toBe(before);
  });
});

describe("scrubMessage", () => {
  test("every string a message carries is scrubbed, and the count is reported", async () => {
    const token = SECRET_SHAPES.find((s) => s.name === "GitHub personal token")!.text;
    const m: Message = {
      ...message("a", "announce", { text: `🟠 leaked ${token}`, markdown: `leaked ${token}`, news: [`new ${token}`] }),
      findings: [
        {
          reason: "CrashLoopBackOff",
          object: { kind: "Pod", name: "p" },
          tier: "medium",
          summary: `uses ${token}`,
          evidence: [{ label: "last output", value: `token ${token}` }],
        },
      ],
    };
    const { message: clean, count } = await scrubMessage(m);
    expect(JSON.stringify(clean)).not.toContain(token);
    expect(count).toBe(5);
    expect(clean.text).toBe("🟠 leaked [redacted-github-token]");
  });
});
