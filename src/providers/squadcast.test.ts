import { describe } from "bun:test";
import { pagerContract } from "../testing/provider-suite.ts";
import squadcast from "./squadcast.ts";

describe("squadcast", () => {
  pagerContract({
    definition: squadcast,
    options: (b) => ({ webhookUrl: `${b}/v2/incidents/api/sq-secret-1` }),
    invalid: [[{}, "webhookUrl is required"]],
    secret: "sq-secret-1",
    path: "/v2/incidents/api/sq-secret-1",
    dedup: (b) => b.event_id,
    status: (b) => b.status,
    expected: ["trigger", "trigger", "resolve"],
  });
});
