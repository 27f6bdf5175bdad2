import { webhookBody } from "./_kit/event-body.ts";
import { describe, expect, test } from "bun:test";
import { createVerify, generateKeyPairSync } from "node:crypto";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import pubsub from "./pubsub.ts";

const { privateKey, publicKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const keyJson = (base: string) =>
  JSON.stringify({
    type: "service_account",
    client_email: "mon@proj-123.iam.gserviceaccount.com",
    private_key: privateKey,
    token_uri: `${base}/token`,
  });
const options = (base: string) => ({
  project: "proj-123",
  topic: "mon-incidents",
  serviceAccountKey: keyJson(base),
  apiUrl: base,
});
const answer = (r: { path: string }) =>
  r.path === "/token"
    ? { status: 200, body: '{"access_token":"ya29.secret","expires_in":3600}' }
    : { status: 200, body: '{"messageIds":["1"]}' };

describe("pubsub", () => {
  providerSuite({
    definition: pubsub,
    options,
    invalid: [[{ project: "P", topic: "t" }, "a project id is lower case"]],
    secret: "BEGIN PRIVATE KEY",
    readable: (body) =>
      body.startsWith("{")
        ? (JSON.parse(body).messages ?? [])
            .map((m: { data: string }) => Buffer.from(m.data, "base64").toString())
            .join("\n")
        : body,
    okAnswer: { status: 200, body: '{"access_token":"ya29.secret","expires_in":3600,"messageIds":["1"]}' },
  });

  test("a JWT signed RS256 with the service account key buys a token, kept for the next publish", async () => {
    const { requests } = await sendAll(pubsub, options, [message("a", "announce"), message("a", "resolve")], answer);
    expect(requests.map((r) => r.path)).toEqual([
      "/token",
      "/v1/projects/proj-123/topics/mon-incidents:publish",
      "/v1/projects/proj-123/topics/mon-incidents:publish",
    ]);
    const assertion = new URLSearchParams(requests[0]!.body).get("assertion")!;
    const [h, c, s] = assertion.split(".");
    const verify = createVerify("RSA-SHA256");
    verify.update(`${h}.${c}`);
    expect(verify.verify(publicKey, Buffer.from(s!, "base64url"))).toBe(true);
    expect(JSON.parse(Buffer.from(c!, "base64url").toString())).toMatchObject({
      iss: "mon@proj-123.iam.gserviceaccount.com",
      scope: "https://www.googleapis.com/auth/pubsub",
    });
    expect(requests[1]!.headers.authorization).toBe("Bearer ya29.secret");
    const published = requests[1]!.json().messages[0];
    expect(published.attributes).toEqual({ dedupKey: "mon-test-a", action: "announce" });
    // The one event body (issue 31.6): the webhook's, version 1.
    expect(JSON.parse(Buffer.from(published.data, "base64").toString())).toEqual(
      webhookBody(message("a", "announce"), "prod"),
    );
  });

  test("without a key, the GKE metadata server supplies the token", async () => {
    const { requests } = await sendAll(
      pubsub,
      (base) => ({ project: "proj-123", topic: "mon-incidents", apiUrl: base, metadataUrl: base }),
      [message("a", "announce")],
      (r) =>
        r.path.startsWith("/computeMetadata")
          ? { status: 200, body: '{"access_token":"ya29.meta","expires_in":3599}' }
          : { status: 200, body: "{}" },
    );
    expect(requests[0]!.headers["metadata-flavor"]).toBe("Google");
    expect(requests[1]!.headers.authorization).toBe("Bearer ya29.meta");
  });
});
