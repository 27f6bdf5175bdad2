import { describe } from "bun:test";
import { pagerContract } from "../testing/provider-suite.ts";
import pagerTree from "./pagerTree.ts";

describe("pagerTree", () => {
  pagerContract({
    definition: pagerTree,
    options: (b) => ({ integrationUrl: `${b}/integration/int_secret1` }),
    invalid: [[{}, "integrationUrl is required"]],
    secret: "int_secret1",
    path: "/integration/int_secret1",
    dedup: (b) => b.Id,
    status: (b) => b.event_type,
    expected: ["create", "create", "resolve"],
  });
});
