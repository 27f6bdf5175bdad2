import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer, type Server } from "node:https";
import { createSimPki, type SimPki } from "../sim/pki.ts";
import { startCaptureServer } from "../testing/capture-server.ts";
import { createOutboundClient } from "./client.ts";

let pki: SimPki;
let server: Server;
let httpsUrl: string;
beforeAll(async () => {
  pki = createSimPki("outbound");
  server = createServer({ cert: pki.serverCert, key: pki.serverKey }, (_req, res) => res.end("secure ok"));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  httpsUrl = `https://127.0.0.1:${(server.address() as { port: number }).port}/`;
});
afterAll(() => {
  server.close();
});

describe("the outbound HTTP client (app.proxyURL, app.caBundlePath, app.insecureSkipTLSVerify)", () => {
  test("app.caBundlePath: a server signed by the bundle's CA is trusted; without the bundle it is not", async () => {
    const trusted = await createOutboundClient({ caBundle: pki.caCert }).request({ method: "GET", url: httpsUrl });
    expect(trusted).toMatchObject({ status: 200, body: "secure ok" });
    expect(
      await createOutboundClient()
        .request({ method: "GET", url: httpsUrl })
        .then(
          () => "connected",
          () => "refused",
        ),
    ).toBe("refused");
  });

  test("app.insecureSkipTLSVerify connects without verifying", async () => {
    expect(
      (await createOutboundClient({ insecureSkipTLSVerify: true }).request({ method: "GET", url: httpsUrl })).status,
    ).toBe(200);
  });

  test("app.proxyURL: requests go through the proxy, with its credentials", async () => {
    const proxy = await startCaptureServer();
    const target = await startCaptureServer();
    try {
      proxy.setDefault({ status: 200, body: "via proxy" });
      const client = createOutboundClient({ proxyUrl: proxy.url.replace("http://", "http://user:pa55@") });
      const answer = await client.request({ url: `${target.url}/hook`, body: "{}" });
      expect(answer).toMatchObject({ status: 200, body: "via proxy" });
      expect(target.requests).toHaveLength(0);
      expect(proxy.requests[0]!.path).toBe(`${target.url}/hook`);
      expect(proxy.requests[0]!.headers["proxy-authorization"]).toBe(`Basic ${btoa("user:pa55")}`);
    } finally {
      await proxy.close();
      await target.close();
    }
  });

  test("one attempt only, with the caller's timeout", async () => {
    const slow = await startCaptureServer();
    try {
      slow.setDefault(() => ({ status: 503 }));
      const answer = await createOutboundClient().request({ url: `${slow.url}/x` });
      expect(answer.status).toBe(503);
      expect(slow.requests).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });
});
