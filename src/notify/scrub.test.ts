import { describe, expect, test } from "bun:test";
import corpus from "./testdata/redaction-corpus.json" with { type: "json" };
import type { Message } from "../model/message.ts";
import { message } from "../testing/messages.ts";
import { scrubMessage, scrubText } from "./scrub.ts";

/**
 * The redaction corpus (spec 6.8): 50 credential shapes that must never reach a provider (vendor tokens
 * from secretlint's maintained rules, plus mon's generic patterns) and 50 harmless look-alikes that must
 * pass untouched, so engineers still see what the pod wrote.
 */
describe("redaction corpus", () => {
  test("the corpus has at least 50 secrets and 50 look-alikes", () => {
    expect(corpus.secrets.length).toBeGreaterThanOrEqual(50);
    expect(corpus.harmless.length).toBeGreaterThanOrEqual(50);
  });

  for (const s of corpus.secrets) {
    test(`removes: ${s.name}`, async () => {
      const line = `error while connecting: ${s.text} (retrying)`;
      const { text, count } = await scrubText(line);
      expect(count).toBeGreaterThan(0);
      // Neither end of the secret value survives (8 characters of each).
      for (const part of [s.secret.slice(0, 8), s.secret.slice(-8)])
        expect(text.includes(part), `${s.name}: ${text}`).toBe(false);
      expect(text).toStartWith("error while connecting: ");
    });
  }

  for (const h of corpus.harmless) {
    test(`keeps: ${h.name}`, async () => {
      expect(await scrubText(h.text)).toEqual({ text: h.text, count: 0 });
    });
  }
});

describe("context survives redaction", () => {
  test("a connection string keeps its host and database; only the password goes", async () => {
    const { text } = await scrubText(
      "dial tcp 10.96.14.7:5432: connect: connection refused (postgres://checkout:s3cret@orders-db.shop:5432/orders)",
    );
    expect(text).toBe(
      "dial tcp 10.96.14.7:5432: connect: connection refused (postgres://checkout:[redacted]@orders-db.shop:5432/orders)",
    );
  });
});

describe("scrubMessage", () => {
  test("every string a message carries is scrubbed, and the count is reported", async () => {
    const token = corpus.secrets.find((s) => s.name === "GitHub personal token")!.text;
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
    expect(clean.text).toBe("🟠 leaked [redacted]");
  });
});
