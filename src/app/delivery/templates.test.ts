import { describe, expect, test } from "bun:test";
import type { Dispatch } from "../../model/dispatch.ts";
import type { Message } from "../../model/message.ts";
import type { ConfiguredProvider } from "../../providers/_kit/build.ts";
import { PROVIDERS } from "../../providers/_registry.gen.ts";
import { providerTemplates, templated } from "./templates.ts";

/** `templates` (Pro, spec 2.1): which providers get them, which template wins, what the fields are. */
describe("templates", () => {
  const provider = (name: string, templates?: Record<string, string>) =>
    ({
      definition: PROVIDERS[name]!,
      common: { templates },
      options: {},
      provider: {},
    }) as unknown as ConfiguredProvider;
  const message = {
    reason: "OOMKilled",
    emoji: "🟠",
    text: "🟠 deployment shop/api: OOMKilled [prod]\nhigh · …",
  } as Message;
  const job = { id: "x", provider: "twilio", message, priority: "normal", createdAt: 0 } as unknown as Dispatch;

  test("plain-text providers only; a provider's own template wins over the global one; reasons in any case", () => {
    const set = providerTemplates({ templates: { oomkilled: "global {{.Message}}" } }, [
      provider("twilio", { OOMKILLED: "own {{ .Message }}" }),
      provider("pushover"),
      provider("slack"),
    ]);
    expect([...set.keys()].sort()).toEqual(["pushover", "twilio"]);
    expect(templated(job, set.get("twilio")).message.text).toBe("🟠 own deployment shop/api: OOMKilled [prod]");
    expect(templated({ ...job, provider: "pushover" }, set.get("pushover")).message.text).toBe(
      "🟠 global deployment shop/api: OOMKilled [prod]",
    );
    const rich = { ...job, provider: "slack" };
    expect(templated(rich, set.get("slack"))).toBe(rich);
  });

  test("{{.Text}} is the whole text; a reason without a template keeps the message as it is", () => {
    const set = providerTemplates({ templates: { OOMKilled: "[{{.Text}}]" } }, [provider("twilio")]);
    expect(templated(job, set.get("twilio")).message.text).toBe(`🟠 [${message.text.slice(3)}]`);
    const other = { ...job, message: { ...message, reason: "ImagePullBackOff" } };
    expect(templated(other, set.get("twilio"))).toBe(other);
  });

  test("every message still starts with exactly its status emoji, whatever the template writes (spec 3.2)", () => {
    const render = (template: string, m: Partial<Message> = {}) =>
      templated(
        { ...job, message: { ...message, ...m } },
        providerTemplates({ templates: { OOMKilled: template } }, [provider("twilio")]).get("twilio"),
      ).message.text;
    expect(render("OOM! {{.Message}}")).toBe("🟠 OOM! deployment shop/api: OOMKilled [prod]");
    expect(render("no headline at all")).toBe("🟠 no headline at all");
    expect(render("🔴 {{.Message}}")).toBe("🟠 deployment shop/api: OOMKilled [prod]");
    expect(render("✅ resolved-looking")).toBe("🟠 resolved-looking");
    const resolved = { emoji: "✅", text: "✅ Resolved: deployment shop/api [prod]" };
    expect(render("done: {{.Message}}", resolved)).toBe("✅ done: Resolved: deployment shop/api [prod]");
  });
});
