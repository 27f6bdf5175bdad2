import { describe } from "bun:test";
import { pagerContract } from "../testing/provider-suite.ts";
import victorOps from "./victorOps.ts";

describe("victorOps", () => {
  pagerContract({
    definition: victorOps,
    options: (b) => ({
      apiKey: "api-key-secret-1",
      routingKey: "team-a",
      url: `${b}/integrations/generic/20131114/alert`,
    }),
    invalid: [[{ routingKey: "x" }, "apiKey is required"]],
    secret: "api-key-secret-1",
    path: "/integrations/generic/20131114/alert/api-key-secret-1/team-a",
    dedup: (b) => b.entity_id,
    status: (b) => b.message_type,
    expected: ["CRITICAL", "CRITICAL", "RECOVERY"],
  });
});
