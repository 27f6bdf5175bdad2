import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer, type Server } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import type { AddressInfo } from "node:net";
import { createFakeClock, createSystemClock } from "../runtime/clock.ts";
import { checkTarget } from "./check.ts";

let http: Server;
let tcp: TcpServer;
let httpPort = 0;
let tcpPort = 0;
let closedPort = 0;

beforeAll(async () => {
  http = createServer((req, res) => {
    if (req.url === "/hang") return; // never answers
    res.statusCode = req.url === "/down" ? 503 : 200;
    res.end("ok");
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  httpPort = (http.address() as AddressInfo).port;
  tcp = createTcpServer((socket) => socket.end());
  await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r));
  tcpPort = (tcp.address() as AddressInfo).port;
  // A port that was just free: nothing listens there.
  const probe = createTcpServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
});

afterAll(() => {
  http.close();
  tcp.close();
});

const clock = createSystemClock();

describe("one probe check (spec 2.3), against loopback servers", () => {
  test("tcp: a listening port answers; a closed one is `connection refused`", async () => {
    expect(
      await checkTarget(
        { kind: "tcp", name: "up", origin: "configured", address: `127.0.0.1:${tcpPort}` },
        2_000,
        clock,
      ),
    ).toMatchObject({ ok: true });
    expect(
      await checkTarget(
        { kind: "tcp", name: "down", origin: "configured", address: `127.0.0.1:${closedPort}` },
        2_000,
        clock,
      ),
    ).toMatchObject({ ok: false, error: "connection refused" });
  });

  test("http: any 2xx/3xx is up unless expectedStatus says otherwise", async () => {
    const url = (path: string) => `http://127.0.0.1:${httpPort}${path}`;
    expect(
      await checkTarget({ kind: "http", name: "a", origin: "configured", address: url("/") }, 2_000, clock),
    ).toMatchObject({ ok: true, status: 200 });
    expect(
      await checkTarget({ kind: "http", name: "b", origin: "configured", address: url("/down") }, 2_000, clock),
    ).toMatchObject({ ok: false, status: 503, error: "status 503" });
    expect(
      await checkTarget(
        { kind: "http", name: "c", origin: "configured", address: url("/down"), expectedStatus: 503 },
        2_000,
        clock,
      ),
    ).toMatchObject({ ok: true });
    expect(
      await checkTarget(
        { kind: "http", name: "d", origin: "configured", address: url("/"), expectedStatus: 204 },
        2_000,
        clock,
      ),
    ).toMatchObject({ ok: false, error: "status 200, expected 204" });
  });

  test("a target that never answers fails when the timeout passes on the injected clock", async () => {
    const fake = createFakeClock(0);
    const pending = checkTarget(
      { kind: "http", name: "hang", origin: "configured", address: `http://127.0.0.1:${httpPort}/hang` },
      5_000,
      fake,
    );
    await new Promise((r) => setTimeout(r, 20)); // the request reaches the server
    await fake.advance(5_000);
    expect(await pending).toMatchObject({ ok: false, error: "timeout after 5000 ms", latencyMs: 5_000 });
  });

  // Only localhost: any other name would send a query to a resolver off this machine.
  test("dns: localhost resolves", async () => {
    expect(
      await checkTarget({ kind: "dns", name: "local", origin: "configured", address: "localhost" }, 2_000, clock),
    ).toMatchObject({ ok: true });
  });
});
