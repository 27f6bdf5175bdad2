import { describe } from "bun:test";
import { pagerContract } from "../testing/provider-suite.ts";
import grafanaOnCall from "./grafanaOnCall.ts";

describe("grafanaOnCall", () => {
  pagerContract({
    definition: grafanaOnCall,
    options: (b) => ({ webhookUrl: `${b}/oncall/integrations/v1/formatted_webhook/goc-secret-1/` }),
    invalid: [[{}, "webhookUrl is required"]],
    secret: "goc-secret-1",
    path: "/oncall/integrations/v1/formatted_webhook/goc-secret-1/",
    dedup: (b) => b.alert_uid,
    status: (b) => b.state,
    expected: ["alerting", "alerting", "ok"],
  });
});
