import { describe, expect } from "bun:test";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { waitUntil } from "../testing/capture-server.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { crashPod, healPod, seedShop, startTestCluster } from "../testing/cluster.ts";
import { realTest, startSmtpd } from "../testing/real-components.ts";

/**
 * The email provider through a real mail transfer agent (Debian's OpenSMTPD, 6.8 in CI): the daemon runs
 * against the simulator and sends to OpenSMTPD on loopback, which queues each mail and relays it to an inbox
 * (an SMTP server the test reads), as a company relay does (docs/providers/email.md).
 */
const track = useCleanup();
const real = realTest("email through a real mail transfer agent (OpenSMTPD)", "smtpd");

/** An SMTP server on loopback that keeps every mail it receives, raw. */
async function startInbox(): Promise<{ port: number; mails: string[]; stop(): Promise<void> }> {
  const mails: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, cb) {
      let raw = "";
      stream.on("data", (c: Buffer) => (raw += c.toString()));
      stream.on("end", () => {
        mails.push(raw);
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.server.address() as AddressInfo).port,
    mails,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** `alert:` with the email provider sending to `to` through the agent on loopback `port` (no TLS there). */
function emailThrough(port: number, to: string) {
  return { email: { host: "127.0.0.1", port, requireTls: false, from: "mon@example.test", to: [to] } };
}

/** A header of a raw mail (unfolded), or undefined. */
function header(raw: string, name: string): string | undefined {
  const head = raw.slice(0, raw.indexOf("\r\n\r\n")).replace(/\r\n[ \t]+/g, " ");
  return new RegExp(`^${name}: (.*)$`, "im").exec(head)?.[1]?.trim();
}

describe("email: the daemon through a real mail transfer agent", () => {
  real(
    "the announcement and the resolve pass through OpenSMTPD and thread in mail clients by their headers",
    async () => {
      const inbox = track(await startInbox());
      const mta = track(await startSmtpd("example.test", inbox.port));
      const cluster = track(
        await startTestCluster(emailThrough(mta.port, "oncall@example.test"), { cluster: "prod-eu1" }),
      );
      const { sim, clock } = cluster;
      seedShop(sim, clock.now());
      await cluster.settle();
      crashPod(sim, "shop", "api-abc12-p0", 4, clock.now());
      await cluster.settle();
      await waitUntil(() => inbox.mails.length === 1, "the announcement relayed by OpenSMTPD", 30_000);
      const announced = inbox.mails[0]!;
      // It went through the real agent: its Received line, and the agent's queue between mon and the inbox.
      expect(header(announced, "Received")).toContain("(OpenSMTPD)");
      expect(header(announced, "Subject")).toBe("[mon] deployment shop/api: CrashLoopBackOff");
      expect(header(announced, "To")).toBe("oncall@example.test");
      const root = header(announced, "Message-ID");
      expect(root).toMatch(/^<mon\.[0-9a-f]{24}@prod-eu1\.mon>$/);
      expect(announced).toContain("deployment shop/api: CrashLoopBackOff in 1 pod");

      healPod(sim, "shop", "api-abc12-p0", 5, clock.now());
      await cluster.settle();
      await waitUntil(() => inbox.mails.length === 2, "the resolve relayed by OpenSMTPD", 30_000);
      const resolved = inbox.mails[1]!;
      expect(header(resolved, "Subject")).toBe("Re: [mon] deployment shop/api: CrashLoopBackOff");
      expect(header(resolved, "In-Reply-To")).toBe(root);
      expect(header(resolved, "References")).toBe(root);
      expect(header(resolved, "Message-ID")).not.toBe(root);
      expect(resolved).toContain("Resolved: deployment shop/api");
    },
    90_000,
  );

  real(
    "a recipient the agent refuses (550) is a permanent failure: one dead letter, no retry",
    async () => {
      const inbox = track(await startInbox());
      const mta = track(await startSmtpd("example.test", inbox.port));
      const cluster = track(await startTestCluster(emailThrough(mta.port, "oncall@elsewhere.test")));
      const { sim, clock } = cluster;
      seedShop(sim, clock.now());
      await cluster.settle();
      crashPod(sim, "shop", "api-abc12-p0", 4, clock.now());
      await cluster.settle();
      const metric = () => cluster.daemon.metrics.registry.metrics();
      await waitUntil(
        async () => /^mon_delivery_dead_letters_total\{provider="email",reason="rejected"\} 1$/m.test(await metric()),
        "the refused mail to be dead-lettered",
        30_000,
      );
      expect(await metric()).not.toMatch(/^mon_delivery_retries_total\{provider="email"[^}]*\} [1-9]/m);
      expect(inbox.mails).toEqual([]);
    },
    90_000,
  );
});
