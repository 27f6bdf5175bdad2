import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { message } from "../testing/messages.ts";
import { makeProvider, providerSuite, sendAll } from "../testing/provider-suite.ts";
import teams from "./teams.ts";

describe("teams", () => {
  providerSuite({
    definition: teams,
    options: (base) => ({
      webhookUrl: `${base}/workflows/abc/triggers/manual/paths/invoke?api-version=1&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=s3cr3tSig`,
    }),
    invalid: [
      [{}, "webhookUrl is required"],
      [{ webhookUrl: "https://contoso.webhook.office.com/webhookb2/x" }, "retired Office 365 connectors are refused"],
    ],
    secret: "s3cr3tSig",
    okAnswer: { status: 202, body: "" },
  });

  test("an Adaptive Card in the envelope the Workflows trigger expects", async () => {
    const { requests, outcomes } = await sendAll(
      teams,
      (base) => ({ webhookUrl: `${base}/invoke?sig=x` }),
      [
        message("a", "announce", {
          text: "🟠 deployment shop/a: CrashLoopBackOff in 1 pod [prod]\nmedium · CrashLoopBackOff\n• pod a crashed",
        }),
      ],
      { status: 202, body: "" },
    );
    expect(outcomes).toEqual([{ kind: "ok" }]);
    const body = requests[0]!.json();
    expect(body.type).toBe("message");
    expect(body.attachments[0].contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(body.attachments[0].contentUrl).toBeNull();
    expect(body.attachments[0].content).toMatchObject({ type: "AdaptiveCard", version: "1.4" });
    expect(body.attachments[0].content.body[0]).toEqual({
      type: "TextBlock",
      text: "🟠 deployment shop/a: CrashLoopBackOff in 1 pod [prod]",
      weight: "Bolder",
      size: "Medium",
      wrap: true,
    });
  });

  test("check: a Workflows trigger URL passes, any other host fails without a call", async () => {
    const ok = makeProvider(teams, {
      webhookUrl:
        "https://prod-12.westeurope.logic.azure.com:443/workflows/1/triggers/manual/paths/invoke?api-version=2016-06-01&sp=x&sv=1.0&sig=abc",
    });
    expect(await ok.check!(AbortSignal.timeout(1_000))).toEqual({ kind: "ok" });
    const wrong = makeProvider(teams, { webhookUrl: "https://example.com/hook" });
    expect((await wrong.check!(AbortSignal.timeout(1_000))).kind).toBe("permanent");
    expect(
      v.safeParse(teams.options, {
        webhookUrl:
          "https://default.environment.api.powerplatform.com/powerautomate/automations/direct/workflows/1/triggers/manual/paths/invoke?api-version=1&sig=x",
      }).success,
    ).toBe(true);
  });
});
