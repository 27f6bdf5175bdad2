import { describe } from "bun:test";
import { pagerContract } from "../testing/provider-suite.ts";
import ilert from "./ilert.ts";

describe("ilert", () => {
  pagerContract({
    definition: ilert,
    options: (b) => ({ integrationKey: "il-secret-key-1", url: `${b}/api/events` }),
    invalid: [[{}, "integrationKey is required"]],
    secret: "il-secret-key-1",
    path: "/api/events",
    dedup: (b) => b.alertKey,
    status: (b) => b.eventType,
    expected: ["ALERT", "ALERT", "RESOLVE"],
  });
});
