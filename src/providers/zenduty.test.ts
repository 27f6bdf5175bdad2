import { describe } from "bun:test";
import { pagerContract } from "../testing/provider-suite.ts";
import zenduty from "./zenduty.ts";

describe("zenduty", () => {
  pagerContract({
    definition: zenduty,
    options: (b) => ({ webhookUrl: `${b}/api/events/generic/tok-secret-9/` }),
    invalid: [[{}, "webhookUrl is required"]],
    secret: "tok-secret-9",
    path: "/api/events/generic/tok-secret-9/",
    dedup: (b) => b.entity_id,
    status: (b) => b.alert_type,
    expected: ["critical", "error", "resolved"],
  });
});
