import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOutboundClient } from "../outbound/client.ts";
import { startCaptureServer } from "../testing/capture-server.ts";
import { message } from "../testing/messages.ts";
import { providerSuite, sendAll } from "../testing/provider-suite.ts";
import { awsCaller } from "./_kit/aws.ts";
import sns from "./sns.ts";

const options = (base: string) => ({
  topicArn: "arn:aws:sns:eu-west-1:123456789012:mon-alerts",
  region: "eu-west-1",
  accessKeyId: "AKIAEXAMPLE",
  secretAccessKey: "aws-secret-access-key",
  endpoint: base,
});

describe("sns", () => {
  providerSuite({
    definition: sns,
    options,
    invalid: [
      [{ topicArn: "mon-alerts", region: "eu-west-1" }, "a topic ARN"],
      [{ topicArn: "arn:aws:sns:eu-west-1:123456789012:t", region: "Ireland" }, "a region name"],
    ],
    secret: "aws-secret-access-key",
    bodyFormat: "form",
  });

  test("Publish, SigV4-signed for sns in the topic's region, with the key as a message attribute; FIFO topics get a group", async () => {
    const { requests } = await sendAll(sns, options, [message("a", "announce")]);
    const r = requests[0]!;
    expect(r.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE\/\d{8}\/eu-west-1\/sns\/aws4_request, SignedHeaders=[a-z;-]+, Signature=[0-9a-f]{64}$/,
    );
    expect(r.headers["x-amz-date"]).toMatch(/^\d{8}T\d{6}Z$/);
    const form = new URLSearchParams(r.body);
    expect([
      form.get("Action"),
      form.get("TopicArn"),
      form.get("MessageAttributes.entry.1.Value.StringValue"),
      form.get("MessageGroupId"),
    ]).toEqual(["Publish", "arn:aws:sns:eu-west-1:123456789012:mon-alerts", "mon-test-a", null]);
    const fifo = await sendAll(
      sns,
      (b) => ({ ...options(b), topicArn: "arn:aws:sns:eu-west-1:123456789012:mon.fifo" }),
      [message("a", "announce")],
    );
    expect(new URLSearchParams(fifo.requests[0]!.body).get("MessageGroupId")).toBe("mon-test-a");
  });

  test("without keys, IRSA: the web identity token is exchanged at STS and the call carries the session token", async () => {
    const server = await startCaptureServer();
    try {
      const dir = mkdtempSync(join(tmpdir(), "mon-irsa-"));
      writeFileSync(join(dir, "token"), "eyJ.web.identity\n");
      server.setDefault((req) =>
        req.body.includes("AssumeRoleWithWebIdentity")
          ? {
              status: 200,
              body: JSON.stringify({
                AssumeRoleWithWebIdentityResponse: {
                  AssumeRoleWithWebIdentityResult: {
                    Credentials: {
                      AccessKeyId: "ASIATEMP",
                      SecretAccessKey: "temp-secret",
                      SessionToken: "session-token-1",
                      Expiration: 4102444800,
                    },
                  },
                },
              }),
            }
          : { status: 200, body: "<PublishResponse/>" },
      );
      const call = awsCaller({ region: "eu-west-1", endpoint: server.url }, "sns", createOutboundClient(), {
        AWS_ROLE_ARN: "arn:aws:iam::123456789012:role/mon",
        AWS_WEB_IDENTITY_TOKEN_FILE: join(dir, "token"),
        AWS_STS_ENDPOINT: server.url,
      });
      expect(
        (
          await call(
            { "content-type": "application/x-www-form-urlencoded" },
            "Action=Publish",
            AbortSignal.timeout(5_000),
            Date.now(),
          )
        ).outcome,
      ).toEqual({ kind: "ok" });
      expect(new URLSearchParams(server.requests[0]!.body).get("WebIdentityToken")).toBe("eyJ.web.identity");
      expect(server.requests[1]!.headers["x-amz-security-token"]).toBe("session-token-1");
      expect(server.requests[1]!.headers.authorization).toContain("Credential=ASIATEMP/");
      const none = awsCaller({ region: "eu-west-1", endpoint: server.url }, "sns", createOutboundClient(), {});
      expect((await none({}, "", AbortSignal.timeout(5_000), Date.now())).outcome.kind).toBe("permanent");
    } finally {
      await server.close();
    }
  });
});
