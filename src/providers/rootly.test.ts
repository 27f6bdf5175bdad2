import { describe } from "bun:test";
import { pagerContract } from "../testing/provider-suite.ts";
import rootly from "./rootly.ts";

describe("rootly", () => {
  pagerContract({
    definition: rootly,
    options: (b) => ({ secret: "rootly-secret-1", targetType: "Service", targetId: "svc1", url: `${b}/notify` }),
    invalid: [
      [{ secret: "rootly-secret-1", targetType: "Team", targetId: "x" }, "targetType is one of Rootly's kinds"],
    ],
    secret: "rootly-secret-1",
    path: "/notify/Service/svc1",
    headers: { authorization: "Bearer rootly-secret-1" },
    dedup: (b) => b.dedup_key,
    status: (b) => b.status,
    expected: ["triggered", "triggered", "resolved"],
  });
});
