import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { message } from "../testing/messages.ts";
import { makeProvider } from "../testing/provider-suite.ts";
import email from "./email.ts";

/** A loopback SMTP server: accepts `mon`/`s3cret`, records mails, and answers what `reply` says for a recipient. */
const mails: { to: string[]; raw: string }[] = [];
let reply: (rcpt: string) => { code: number; text: string } | undefined = () => undefined;
let server: SMTPServer;
let port = 0;

beforeAll(async () => {
  server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === "mon" && auth.password === "s3cret") cb(null, { user: "mon" });
      else cb(Object.assign(new Error("Invalid username or password"), { responseCode: 535 }));
    },
    onRcptTo(address, _session, cb) {
      const r = reply(address.address);
      if (r) cb(Object.assign(new Error(r.text), { responseCode: r.code }));
      else cb();
    },
    onData(stream, session, cb) {
      let raw = "";
      stream.on("data", (c: Buffer) => (raw += c.toString()));
      stream.on("end", () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const options = (extra: Record<string, unknown> = {}) => ({
  host: "127.0.0.1",
  port,
  requireTls: false,
  username: "mon",
  password: "s3cret",
  from: "mon@acme.example",
  to: ["oncall@acme.example"],
  ...extra,
});
const send = (m: ReturnType<typeof message>, extra: Record<string, unknown> = {}) =>
  makeProvider(email, options(extra)).send(m, { signal: AbortSignal.timeout(5_000), now: 0 });
const header = (raw: string, name: string) => new RegExp(`^${name}: (.*)$`, "mi").exec(raw)?.[1]?.trim();

describe("email", () => {
  test("the announcement and its resolve thread by headers; unicode survives", async () => {
    mails.length = 0;
    const root = { kind: "Deployment", namespace: "shop", name: "api" };
    expect(await send(message("a", "announce", { root, text: "🟠 ünïcødé 中文" }))).toEqual({ kind: "ok" });
    expect(await send(message("a", "resolve", { root }))).toEqual({ kind: "ok" });
    const [announce, resolve] = mails;
    expect(announce!.to).toEqual(["oncall@acme.example"]);
    expect(header(announce!.raw, "Subject")).toBe("[mon] deployment shop/api: CrashLoopBackOff");
    expect(header(resolve!.raw, "Subject")).toBe("Re: [mon] deployment shop/api: CrashLoopBackOff");
    expect(header(resolve!.raw, "In-Reply-To")).toBe(header(announce!.raw, "Message-ID"));
    expect(header(resolve!.raw, "References")).toBe(header(announce!.raw, "Message-ID"));
    expect(announce!.raw).toContain("=F0=9F=9F=A0");
  });

  test("SMTP 5xx is permanent, 4xx is retried; a wrong password is permanent; check authenticates without sending", async () => {
    reply = (rcpt) =>
      rcpt.startsWith("gone")
        ? { code: 550, text: "No such user" }
        : rcpt.startsWith("busy")
          ? { code: 451, text: "Try again later" }
          : undefined;
    try {
      expect((await send(message("a", "announce"), { to: ["gone@acme.example"] })).kind).toBe("permanent");
      expect((await send(message("a", "announce"), { to: ["busy@acme.example"] })).kind).toBe("retry");
    } finally {
      reply = () => undefined;
    }
    const denied = await send(message("a", "announce"), { password: "wrong" });
    expect(denied.kind).toBe("permanent");
    expect(JSON.stringify(denied)).not.toContain("wrong");
    const before = mails.length;
    expect(await makeProvider(email, options()).check!(AbortSignal.timeout(5_000))).toEqual({ kind: "ok" });
    expect(mails.length).toBe(before);
  });

  test("nothing listening is a retryable network failure", async () => {
    expect(await send(message("a", "announce"), { port: 1 })).toMatchObject({ kind: "retry" });
  });
});
