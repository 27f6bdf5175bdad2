import { describe } from "bun:test";
import { pagerContract } from "../testing/provider-suite.ts";
import signl4 from "./signl4.ts";

describe("signl4", () => {
  pagerContract({
    definition: signl4,
    options: (b) => ({ teamSecret: "s4-secret-1", url: `${b}/webhook` }),
    invalid: [[{}, "teamSecret is required"]],
    secret: "s4-secret-1",
    path: "/webhook/s4-secret-1",
    dedup: (b) => b["X-S4-ExternalID"],
    status: (b) => b["X-S4-Status"],
    expected: ["new", "new", "resolved"],
  });
});
