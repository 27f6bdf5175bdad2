import { expect, test } from "bun:test";
import * as v from "valibot";
import type { Outcome } from "../model/dispatch.ts";
import type { Message } from "../model/message.ts";
import fc from "fast-check";
import { attemptJob } from "../deliver/attempt.ts";
import { shrinkMessage, splitMessage } from "../notify/shrink.ts";
import { createProvider } from "../providers/_kit/build.ts";
import { bodyLimitOf } from "../providers/_kit/limits.ts";
import { createFakeClock } from "../runtime/clock.ts";
import type { ProviderDefinition } from "../providers/_kit/define.ts";
import { createOutboundClient } from "../outbound/client.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { startCaptureServer, type CaptureServer, type ScriptedAnswer } from "./capture-server.ts";
import { message } from "./messages.ts";

/** How a provider under test is pointed at a capture server. */
export interface ProviderCase {
  readonly definition: ProviderDefinition;
  /** Valid options for the provider, with credentials already read, given the capture server's base URL. */
  options(baseUrl: string): Record<string, unknown>;
  /** Options the schema must reject, each with why. */
  readonly invalid: readonly [Record<string, unknown>, string][];
  /** A secret value the options carry; it must never appear in an outcome's reason. */
  readonly secret?: string;
  /** The answer the vendor gives to a successful call. */
  readonly okAnswer?: ScriptedAnswer;
  /** How the request body is encoded (default JSON). */
  readonly bodyFormat?: "json" | "text" | "form";
  /** The text a request body carries, when the vendor encodes it further (Pub/Sub's base64 data). */
  readonly readable?: (body: string) => string;
}

/**
 * The provider conformance kit (STYLE.md convention 5): schema accepts and rejects, the status-code →
 * outcome table of providers.md 1.4, unicode and over-limit text producing a valid request, and secrets
 * never in outcomes. Each provider's test calls it, then adds its own cases.
 */
export function providerSuite(c: ProviderCase): void {
  const send = async (server: CaptureServer, m: Message = message("a", "announce")): Promise<Outcome> => {
    const provider = makeProvider(c.definition, c.options(server.url), "test");
    try {
      return await provider.send(m, { signal: AbortSignal.timeout(5_000), now: Date.parse("2026-01-01T00:00:00Z") });
    } finally {
      provider.close?.();
    }
  };

  test(`${c.definition.name}: the option schema accepts valid options and rejects invalid ones`, () => {
    expect(v.safeParse(c.definition.options, c.options("http://127.0.0.1:1")).success).toBe(true);
    for (const [options, why] of c.invalid) expect(v.safeParse(c.definition.options, options).success, why).toBe(false);
  });

  const table: [ScriptedAnswer, Outcome["kind"], number | undefined][] = [
    [c.okAnswer ?? { status: 200, body: "ok" }, "ok", undefined],
    [{ status: 400, body: "invalid_payload" }, "permanent", undefined],
    [{ status: 401, body: "unauthorized" }, "permanent", undefined],
    [{ status: 404, body: "no_service" }, "permanent", undefined],
    [{ status: 429, headers: { "retry-after": "7" } }, "rateLimited", 7_000],
    [{ status: 429 }, "rateLimited", undefined],
    [{ status: 500 }, "retry", undefined],
    [{ status: 503, headers: { "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" } }, "retry", 30_000],
  ];
  for (const [answer, kind, afterMs] of table) {
    test(`${c.definition.name}: HTTP ${answer.status}${answer.headers ? " with Retry-After" : ""} → ${kind}`, async () => {
      const server = await startCaptureServer();
      try {
        server.queue(answer);
        const outcome = await send(server);
        expect(outcome.kind).toBe(kind);
        if (afterMs !== undefined) expect((outcome as { afterMs?: number }).afterMs).toBe(afterMs);
        if (c.secret && outcome.kind === "permanent") expect(outcome.reason).not.toContain(c.secret);
      } finally {
        await server.close();
      }
    });
  }

  test(`${c.definition.name}: a network failure is retryable`, async () => {
    const server = await startCaptureServer();
    const url = server.url;
    await server.close();
    const provider = makeProvider(c.definition, c.options(url), "test");
    const outcome = await provider.send(message("a", "announce"), { signal: AbortSignal.timeout(5_000), now: 0 });
    provider.close?.();
    expect(outcome.kind).toBe("retry");
    // The host and the system's error code are named; never the path (it may carry a credential).
    expect((outcome as { reason: string }).reason).toMatch(/^network(: 127\.0\.0\.1:\d+ ECONNREFUSED)?$/);
  });

  test(`${c.definition.name}: any message reaches it within its size limit, shortened or split, never dead-lettered for size (issue 30)`, async () => {
    const server = await startCaptureServer();
    const options = v.parse(c.definition.options, c.options(server.url)) as Record<string, unknown>;
    const limit = bodyLimitOf(c.definition.name, options);
    const provider = makeProvider(c.definition, c.options(server.url), "test");
    try {
      if (c.okAnswer) server.setDefault(c.okAnswer);
      await fc.assert(
        fc.asyncProperty(bigMessage, async (m) => {
          const before = server.requests.length;
          const settled = await attemptJob(
            {
              job: { id: `j-${m.id}`, provider: c.definition.name, message: m, createdAt: 0, priority: "routine" },
              superseded: false,
            },
            {
              sender: provider,
              clock: createFakeClock(0),
              signal: AbortSignal.timeout(20_000),
              conversation: () => undefined,
              shortener: { shrink: shrinkMessage, split: splitMessage },
            },
          );
          expect(settled.kind).toBe("delivered");
          const sent = server.requests.slice(before);
          expect(sent.length).toBeGreaterThan(0);
          if (limit !== undefined)
            for (const r of sent) expect(Buffer.byteLength(r.body, "utf8")).toBeLessThanOrEqual(limit);
        }),
        { numRuns: 12 },
      );
    } finally {
      provider.close?.();
      await server.close();
    }
  }, 60_000);

  test(`${c.definition.name}: unicode and 100 kB of text still make one valid request`, async () => {
    const server = await startCaptureServer();
    try {
      if (c.okAnswer) server.setDefault(c.okAnswer);
      const huge = `ünïcødé ✅ 中文 🟠 ${"x".repeat(100_000)}`;
      const outcome = await send(server, message("a", "announce", { text: huge, markdown: huge }));
      expect(outcome.kind).toBe("ok");
      // Every request that carries a body is valid; a lookup before the write (trackers) carries none.
      const written = server.requests.filter((r) => r.body.length > 0);
      expect(written.length).toBeGreaterThan(0);
      const format = c.bodyFormat ?? "json";
      // A token exchange before the write (pubsub) is a form: only JSON requests must parse as JSON.
      for (const request of written)
        if (format === "json" && String(request.headers["content-type"] ?? "").includes("json"))
          expect(() => JSON.parse(request.body)).not.toThrow();
      const readable = written
        .map((request) =>
          c.readable
            ? c.readable(request.body)
            : format === "form"
              ? [...new URLSearchParams(request.body).values()].join("\n")
              : request.body,
        )
        .join("\n");
      expect(readable).toContain("ünïcødé ✅ 中文");
    } finally {
      await server.close();
    }
  });
}

/** Builds a provider from raw options (parsed by its schema), with a real outbound client: for vendor-specific tests. */
export function makeProvider(definition: ProviderDefinition, options: Record<string, unknown>, clusterName = "prod") {
  return createProvider(definition, v.parse(definition.options, options) as Record<string, unknown>, {
    http: createOutboundClient(),
    logger: createSilentLogger(),
    clusterName,
    stdout: () => {},
  });
}

/** Sends messages through a provider in order, against a capture server answering `answer`; returns what the server received. */
export async function sendAll(
  definition: ProviderDefinition,
  options: (base: string) => Record<string, unknown>,
  messages: readonly Message[],
  answer: ScriptedAnswer | ((request: import("./capture-server.ts").CapturedRequest) => ScriptedAnswer) = {
    status: 200,
    body: "ok",
  },
  conversation?: (index: number) => string | undefined,
) {
  const server = await startCaptureServer();
  try {
    server.setDefault(answer);
    const provider = makeProvider(definition, options(server.url));
    const outcomes: Outcome[] = [];
    for (const [i, m] of messages.entries()) {
      const c = conversation?.(i);
      outcomes.push(
        await provider.send(m, {
          signal: AbortSignal.timeout(5_000),
          now: Date.parse("2026-01-01T00:00:00Z"),
          ...(c ? { conversation: c } : {}),
        }),
      );
    }
    provider.close?.();
    return { requests: [...server.requests], outcomes };
  } finally {
    await server.close();
  }
}

/**
 * The pager contract (providers.md 3.2): the conformance kit, then announce / update / resolve of one
 * incident reach `path` with `headers`, carry the incident's dedup key in the vendor's field (`dedup`) and
 * the vendor's status values (`status`: what announce, update and resolve send).
 */
export function pagerContract(
  c: ProviderCase & {
    readonly path: string;
    readonly headers?: Record<string, string>;
    readonly dedup: (body: any) => unknown;
    readonly status: (body: any) => unknown;
    readonly expected: readonly [announce: unknown, update: unknown, resolve: unknown];
  },
): void {
  providerSuite(c);
  test(`${c.definition.name}: announce, update and resolve of one incident under its dedup key`, async () => {
    const m = (action: "announce" | "update" | "resolve") =>
      message("Deployment/shop/api", action, {
        mode: action === "announce" ? "page" : "notify",
        tier: action === "announce" ? "critical" : "high",
        dedupKey: "mon-prod-deployment-shop-api-page",
      });
    const { requests, outcomes } = await sendAll(
      c.definition,
      c.options,
      [m("announce"), m("update"), m("resolve")],
      c.okAnswer ?? { status: 200, body: "ok" },
    );
    expect(outcomes.every((o) => o.kind === "ok")).toBe(true);
    for (const r of requests) {
      expect(r.method).toBe("POST");
      expect(r.path).toBe(c.path);
      expect(r.headers["content-type"]).toContain("application/json");
      for (const [k, val] of Object.entries(c.headers ?? {})) expect(r.headers[k]).toBe(val);
    }
    const bodies = requests.map((r) => r.json());
    expect(bodies.map(c.dedup)).toEqual(Array(3).fill("mon-prod-deployment-shop-api-page"));
    expect(bodies.map(c.status)).toEqual([...c.expected]);
  });
}

/**
 * Messages of any size a flood can produce (issue 30): many findings with long evidence, long text, a roll-up
 * covering thousands of incidents.
 */
const bigMessage = fc
  .record({
    findings: fc.nat({ max: 400 }),
    evidence: fc.nat({ max: 4_000 }),
    lines: fc.nat({ max: 2_000 }),
    lineLength: fc.integer({ min: 1, max: 300 }),
    covers: fc.nat({ max: 3_000 }),
    news: fc.nat({ max: 60 }),
    unicode: fc.boolean(),
  })
  .map(({ findings, evidence, lines, lineLength, covers, news, unicode }) => {
    const char = unicode ? "ü" : "x";
    const line = (i: number) => `• deployment ns-${i % 50}/app-${i}: CrashLoopBackOff ${char.repeat(lineLength)}`;
    const text = ["🟠 Roll-up: problems in one pass [prod]", ...Array.from({ length: lines }, (_, i) => line(i))].join(
      "\n",
    );
    const ids = Array.from({ length: covers }, (_, i) => `Deployment/ns-${i % 50}/app-${i}`);
    return message(`roll-up@${findings}-${lines}-${covers}`, "announce", {
      text,
      markdown: text,
      news: Array.from({ length: news }, (_, i) => line(i)),
      findings: Array.from({ length: findings }, (_, i) => ({
        reason: "CrashLoopBackOff",
        object: { kind: "Pod", namespace: `ns-${i % 50}`, name: `app-${i}-abc12-p0` },
        tier: "medium" as const,
        summary: line(i),
        evidence: [{ label: "last output", value: char.repeat(evidence) }],
      })),
      ...(covers ? { covers: ids, delivery: "roll-up" as const } : {}),
    });
  });
