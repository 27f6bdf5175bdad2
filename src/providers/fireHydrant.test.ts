import { describe } from "bun:test";
import { pagerContract } from "../testing/provider-suite.ts";
import fireHydrant from "./fireHydrant.ts";

describe("fireHydrant", () => {
  pagerContract({
    definition: fireHydrant,
    options: (b) => ({ webhookUrl: `${b}/v1/process/fh-secret-1` }),
    invalid: [[{}, "webhookUrl is required"]],
    secret: "fh-secret-1",
    path: "/v1/process/fh-secret-1",
    dedup: (b) => b.idempotency_key,
    status: (b) => b.status,
    expected: ["OPEN", "OPEN", "CLOSED"],
  });
});
