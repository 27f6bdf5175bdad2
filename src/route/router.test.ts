import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { createRouter } from "./router.ts";

const providers = [{ name: "webhook", kind: "info" as const }, { name: "slack", kind: "chat" as const }];

describe("router (Community, spec 1.10)", () => {
  test("one provider only: app.communityProvider when configured", () => {
    const router = createRouter({ providers, communityProvider: "webhook" });
    expect(router.active).toEqual(["webhook"]);
    expect(router.inactive).toEqual(["slack"]);
    expect(router.route(message("a", "announce"), 0).map((j) => j.provider)).toEqual(["webhook"]);
  });

  test("empty or unknown communityProvider keeps the first by name, with a warning for an unknown one", () => {
    expect(createRouter({ providers }).active).toEqual(["slack"]);
    const router = createRouter({ providers, communityProvider: "pagerDuty" });
    expect(router.active).toEqual(["slack"]);
    expect(router.warning).toBe("app.communityProvider pagerDuty is not configured; keeping slack");
  });

  test("resolves and pages are urgent; routine otherwise", () => {
    const router = createRouter({ providers });
    expect(router.route(message("a", "announce"), 0)[0]!.priority).toBe("routine");
    expect(router.route(message("b", "announce", { mode: "page" }), 0)[0]!.priority).toBe("urgent");
    expect(router.route(message("a", "resolve"), 0)[0]!.priority).toBe("urgent");
  });

  test("no provider configured: nothing to send", () => {
    expect(createRouter({ providers: [] }).route(message("a", "announce"), 0)).toEqual([]);
  });

  test("startup summary goes to chat and info providers; page-tier problems go on their own to paging tools", () => {
    const withPager = [...providers, { name: "pagerDuty", kind: "paging" as const }];
    const summary = message("startup-summary@0", "announce", { delivery: "startup summary", covers: ["a", "b"], mode: "page" });
    const pageA = message("a", "announce", { delivery: "paging", mode: "page" });

    const chat = createRouter({ providers: withPager, communityProvider: "slack" });
    expect(chat.route(summary, 0).map((j) => j.provider)).toEqual(["slack"]);
    expect(chat.route(pageA, 0)).toEqual([]);
    // The incidents the summary listed continue in the same place.
    expect(chat.route(message("b", "update"), 1).map((j) => j.provider)).toEqual(["slack"]);
    expect(chat.route(message("a", "resolve"), 2).map((j) => j.provider)).toEqual(["slack"]);

    const pager = createRouter({ providers: withPager, communityProvider: "pagerDuty" });
    expect(pager.route(summary, 0)).toEqual([]);
    expect(pager.route(pageA, 0).map((j) => [j.provider, j.priority])).toEqual([["pagerDuty", "urgent"]]);
    expect(pager.route(message("a", "resolve"), 1).map((j) => j.provider)).toEqual(["pagerDuty"]);
  });

  test("a roll-up's closing message goes where the roll-up went, so a pager never gets it", () => {
    const router = createRouter({ providers: [...providers, { name: "pagerDuty", kind: "paging" as const }], communityProvider: "pagerDuty" });
    expect(router.route(message("roll-up@0", "announce", { delivery: "roll-up", covers: ["a", "b"] }), 0)).toEqual([]);
    expect(router.route(message("a", "announce", { delivery: "paging", mode: "page" }), 0).map((j) => j.provider)).toEqual(["pagerDuty"]);
    expect(router.route(message("a", "resolve"), 1).map((j) => j.provider)).toEqual(["pagerDuty"]);
    expect(router.route(message("roll-up@0", "resolve", { delivery: "roll-up" }), 2)).toEqual([]);
  });
});
