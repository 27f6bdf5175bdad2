import { describe, expect, test } from "bun:test";
import { message } from "../testing/messages.ts";
import { type FallbackProvider, fallbackFor } from "./fallback.ts";

const providers = new Map<string, FallbackProvider>(
  [
    { name: "slack", kind: "chat", fallback: "webhook" } as const,
    { name: "pagerDuty", kind: "paging", fallback: "webhook" } as const,
    { name: "webhook", kind: "info", fallback: "pagerDuty" } as const,
  ].map((p) => [p.name, p]),
);
const none = () => false;

describe("fallback (spec 6 item 5)", () => {
  test("for chat, and for a pager's updates; never for a pager's opening or resolve, never a pager for a summary", () => {
    expect(fallbackFor("slack", message("a", "announce"), providers, none)).toEqual({ to: "webhook", send: true });
    expect(fallbackFor("pagerDuty", message("a", "announce", { mode: "page" }), providers, none)).toBeUndefined();
    expect(fallbackFor("pagerDuty", message("a", "resolve"), providers, none)).toBeUndefined();
    expect(fallbackFor("pagerDuty", message("a", "update"), providers, none)).toEqual({ to: "webhook", send: true });
    const summary = message("startup-summary@0", "announce", { delivery: "startup summary", covers: ["a"] });
    expect(fallbackFor("webhook", summary, providers, none)).toBeUndefined();
    expect(fallbackFor("webhook", message("b", "announce"), providers, none)).toEqual({ to: "pagerDuty", send: true });
  });

  test("a fallback that got this very message already gets nothing more; an unconfigured fallback is none", () => {
    const has = (id: string, p: string) => id === message("d", "announce").id && p === "webhook";
    expect(fallbackFor("slack", message("d", "announce"), providers, has)).toEqual({ to: "webhook", send: false });
    const alone = new Map<string, FallbackProvider>([["slack", { name: "slack", kind: "chat", fallback: "webhook" }]]);
    expect(fallbackFor("slack", message("a", "announce"), alone, none)).toBeUndefined();
  });
});
