import { describe } from "bun:test";
import { pagerContract } from "../testing/provider-suite.ts";
import incidentIo from "./incidentIo.ts";

describe("incidentIo", () => {
  pagerContract({
    definition: incidentIo,
    options: (b) => ({ token: "bearer-secret-1", alertSourceConfigId: "01ABC", url: b }),
    invalid: [[{ token: "bearer-secret-1" }, "alertSourceConfigId is required"]],
    secret: "bearer-secret-1",
    path: "/v2/alert_events/http/01ABC",
    headers: { authorization: "Bearer bearer-secret-1" },
    dedup: (b) => b.deduplication_key,
    status: (b) => b.status,
    expected: ["firing", "firing", "resolved"],
  });
});
