import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { communityChoice, communityNotes, createRouter } from "./router.ts";

const providers = [
  { name: "webhook", kind: "info" as const },
  { name: "slack", kind: "chat" as const },
];

describe("router (Community, spec 1.10)", () => {
  test("one provider only: app.communityProvider when configured", () => {
    const router = createRouter({ providers, communityProvider: "webhook" });
    expect(router.active).toEqual(["webhook"]);
    expect(router.inactive).toEqual(["slack"]);
    expect(router.route(message("a", "announce"), 0).map((j) => j.provider)).toEqual(["webhook"]);
  });

  test("empty or unknown communityProvider keeps a chat provider first, with a warning for an unknown one", () => {
    expect(createRouter({ providers }).active).toEqual(["slack"]);
    const router = createRouter({ providers, communityProvider: "pagerDuty" });
    expect(router.active).toEqual(["slack"]);
    expect(router.warning).toBe("app.communityProvider pagerDuty is not configured; keeping slack");
  });

  test("without app.communityProvider, a chat provider over a pager, whatever their names (issue 29.5)", () => {
    const kinds = [
      { name: "pagerDuty", kind: "paging" as const },
      { name: "slack", kind: "chat" as const },
      { name: "jira", kind: "tracker" as const },
      { name: "email", kind: "info" as const },
    ];
    expect(communityChoice(kinds)).toBe("slack");
    expect(communityChoice(kinds.filter((k) => k.kind !== "chat"))).toBe("email");
    expect(communityChoice([kinds[0]!, kinds[2]!])).toBe("jira");
    expect(communityChoice(kinds, "pagerDuty")).toBe("pagerDuty");
  });

  test("what Community leaves out is said: the one provider kept and why, routes and fallbacks without effect", () => {
    const notes = communityNotes([
      { name: "pagerDuty", kind: "paging", routes: [{ severities: ["critical"] }] },
      { name: "slack", kind: "chat", fallback: "pagerDuty" },
    ]);
    expect(notes.map((n) => n.key)).toEqual(["alert", "alert.pagerDuty.routes", "alert.slack.fallback"]);
    expect(notes[0]!.message).toStartWith("Community delivers every incident to one provider: slack (chosen:");
    expect(notes[0]!.message).toEndWith("pagerDuty receives nothing without Pro");
    expect(notes[2]!.message).toBe(
      "alert.slack.fallback: in Community only slack receives messages, so pagerDuty never takes over",
    );
    expect(communityNotes([{ name: "slack", kind: "chat" }])).toEqual([]);
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
    const summary = message("startup-summary@0", "announce", {
      delivery: "startup summary",
      covers: ["a", "b"],
      mode: "page",
    });
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
    const router = createRouter({
      providers: [...providers, { name: "pagerDuty", kind: "paging" as const }],
      communityProvider: "pagerDuty",
    });
    expect(router.route(message("roll-up@0", "announce", { delivery: "roll-up", covers: ["a", "b"] }), 0)).toEqual([]);
    expect(
      router.route(message("a", "announce", { delivery: "paging", mode: "page" }), 0).map((j) => j.provider),
    ).toEqual(["pagerDuty"]);
    expect(router.route(message("a", "resolve"), 1).map((j) => j.provider)).toEqual(["pagerDuty"]);
    expect(router.route(message("roll-up@0", "resolve", { delivery: "roll-up" }), 2)).toEqual([]);
  });
});

describe("router (Pro, spec 6 items 3-5)", () => {
  const to = (jobs: { provider: string }[]) => jobs.map((j) => j.provider);

  test("every provider receives, each through its routes; a conversation stays where its announcement went", () => {
    const router = createRouter({
      edition: "pro",
      providers: [
        { name: "slack", kind: "chat", routes: [{ namespaces: ["shop"], severities: ["high", "medium"] }] },
        { name: "pagerDuty", kind: "paging", routes: [{ owners: ["Team-Payments"], reasons: ["crashloopbackoff"] }] },
        { name: "webhook", kind: "info" },
      ],
    });
    expect(router.active).toEqual(["pagerDuty", "slack", "webhook"]);
    expect(to(router.route(message("a", "announce", { owner: "team-payments" }), 0))).toEqual([
      "pagerDuty",
      "slack",
      "webhook",
    ]);
    expect(
      to(router.route(message("b", "announce", { root: { kind: "Deployment", namespace: "ops", name: "b" } }), 0)),
    ).toEqual(["webhook"]);
    // The owner label changed after the announcement: the conversation keeps its providers.
    expect(to(router.route(message("a", "update", { owner: "team-search" }), 1))).toEqual([
      "pagerDuty",
      "slack",
      "webhook",
    ]);
    // A route listing owners still needs its other fields: the owner alone is not enough.
    expect(
      to(
        router.route(
          message("c", "announce", {
            owner: "team-payments",
            reason: "OOMKilled",
            root: { kind: "Deployment", namespace: "ops", name: "c" },
          }),
          0,
        ),
      ),
    ).toEqual(["webhook"]);
  });

  test("after a restart with no record, an update or resolve is judged on the route parts it carries", () => {
    const router = createRouter({
      edition: "pro",
      providers: [
        { name: "slack", kind: "chat", routes: [{ namespaces: ["shop"] }] },
        { name: "webhook", kind: "info", routes: [{ namespaces: ["ops"] }] },
      ],
    });
    expect(to(router.route(message("a", "resolve"), 0))).toEqual(["slack"]);
  });

  test("a summary goes to a routed provider when one problem it names matches; each problem continues where it was sent", () => {
    const router = createRouter({
      edition: "pro",
      providers: [
        { name: "slack", kind: "chat", routes: [{ namespaces: ["shop"] }] },
        { name: "webhook", kind: "info", routes: [{ namespaces: ["ops"] }] },
      ],
    });
    const summary = message("startup-summary@0", "announce", {
      delivery: "startup summary",
      covers: ["a", "b"],
      problems: [
        { incidentId: "a", namespaces: ["shop"], tier: "medium", reasons: ["CrashLoopBackOff"], owners: [] },
        { incidentId: "b", namespaces: ["kube-system"], tier: "high", reasons: ["NodeLost"], owners: [] },
      ],
    });
    expect(to(router.route(summary, 0))).toEqual(["slack"]);
    expect(to(router.route(message("a", "resolve"), 1))).toEqual(["slack"]);
  });

  test("a fallback joins the conversation: the resolve goes there too", () => {
    const router = createRouter({
      edition: "pro",
      providers: [
        { name: "slack", kind: "chat" },
        { name: "pagerDuty", kind: "paging" },
        { name: "webhook", kind: "info" },
      ],
    });
    router.route(message("c", "announce"), 0);
    router.join("c", "webhook");
    expect(to(router.route(message("c", "resolve"), 1))).toEqual(["pagerDuty", "slack", "webhook"]);
  });
});

describe("plain notices (spec 6)", () => {
  test("go to every provider but paging tools and trackers, whatever their routes", () => {
    const router = createRouter({
      edition: "pro",
      providers: [
        { name: "slack", kind: "chat", routes: [{ namespaces: ["shop"] }] },
        { name: "pagerDuty", kind: "paging" },
        { name: "webhook", kind: "info" },
      ],
    });
    router.route(message("a", "announce"), 0);
    const notice = message("startup@0", "announce", { delivery: "notice", root: { kind: "Cluster", name: "prod" } });
    expect(router.route(notice, 1).map((j) => j.provider)).toEqual(["slack", "webhook"]);
  });
});

describe("conversations across restarts (spec 6 item 4)", () => {
  test("every change of a conversation's providers is reported; a restored one sends the resolve where the announcement went", () => {
    const seen: [string, readonly string[] | undefined][] = [];
    const providers = [
      { name: "slack", kind: "chat" as const },
      { name: "webhook", kind: "info" as const },
    ];
    const before = createRouter({
      edition: "pro",
      providers: [providers[0]!],
      onConversation: (id, p) => seen.push([id, p]),
    });
    before.route(message("a", "announce"), 0);
    expect(seen).toEqual([["a", ["slack"]]]);
    // After a restart the webhook is configured too, without routes: it would get a new conversation, not this one.
    const after = createRouter({ edition: "pro", providers, onConversation: (id, p) => seen.push([id, p]) });
    after.restore([
      ["a", ["slack"]],
      ["gone", ["pagerDuty"]],
    ]);
    expect(after.route(message("a", "resolve"), 1).map((j) => j.provider)).toEqual(["slack"]);
    expect(seen.at(-1)).toEqual(["a", undefined]);
    // A provider no longer configured is dropped; nothing left means the route parts decide.
    expect(after.route(message("gone", "resolve"), 2).map((j) => j.provider)).toEqual(["slack", "webhook"]);
  });
});
