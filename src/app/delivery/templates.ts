import type { Config } from "../../config/schema.ts";
import { parseTemplate, renderTemplate, type Template } from "../../config/template.ts";
import type { Dispatch } from "../../model/dispatch.ts";
import type { Message } from "../../model/message.ts";
import { STATUS_EMOJI } from "../../notify/render.ts";
import type { ConfiguredProvider } from "../../providers/_kit/build.ts";

/**
 * `templates` (Pro, spec 2.1): for each provider whose receiver shows plain text (`plainText` in its
 * definition), the templates by lower-cased reason — the global `templates` with the provider's own
 * `alert.<name>.templates` over them. Rich providers get none: they build their own format. Templates were
 * checked when the configuration was loaded; one that does not parse here is left out.
 */
export function providerTemplates(
  config: Pick<Config, "templates">,
  providers: readonly ConfiguredProvider[],
): ReadonlyMap<string, ReadonlyMap<string, Template>> {
  const parse = (entries: Record<string, string> | undefined) =>
    Object.entries(entries ?? {}).flatMap(([reason, source]) => {
      const parsed = parseTemplate(source);
      return parsed.ok ? [[reason.toLowerCase(), parsed.template] as const] : [];
    });
  const global = parse(config.templates);
  const out = new Map<string, ReadonlyMap<string, Template>>();
  for (const p of providers) {
    if (!p.definition.plainText) continue;
    const own = new Map([...global, ...parse(p.common.templates)]);
    if (own.size) out.set(p.definition.name, own);
  }
  return out;
}

/**
 * A job with its message's text rendered through the template of its reason, when its provider has one:
 * `{{.Message}}` is the headline (the first line, with the status emoji), `{{.Text}}` the whole text. The
 * result starts with exactly the message's status emoji whatever the template wrote (spec 3.2): a leading
 * status emoji of another kind is replaced, a missing one is moved to the front from where the template put
 * it (or added). The combined 'opened and resolved' message is rendered the same way. Other jobs are returned
 * as they are. Pure.
 */
export function templated(job: Dispatch, templates: ReadonlyMap<string, Template> | undefined): Dispatch {
  if (!templates) return job;
  const apply = (message: Message): Message => {
    const template = templates.get(message.reason.toLowerCase());
    if (!template) return message;
    const rendered = renderTemplate(template, { Message: message.text.split("\n")[0] ?? "", Text: message.text });
    const text = withStatusEmoji(rendered, message.emoji);
    return { ...message, text, markdown: text };
  };
  const message = apply(job.message);
  const openedResolved = job.openedResolved ? apply(job.openedResolved) : undefined;
  if (message === job.message && openedResolved === job.openedResolved) return job;
  return { ...job, message, ...(openedResolved ? { openedResolved } : {}) };
}

const STATUS_EMOJIS: readonly string[] = Object.values(STATUS_EMOJI);

/** `text` starting with exactly `emoji` (spec 3.2: every message starts with one status emoji). */
function withStatusEmoji(text: string, emoji: string): string {
  let rest = text.trimStart();
  let led = false;
  for (let e = STATUS_EMOJIS.find((x) => rest.startsWith(x)); e; e = STATUS_EMOJIS.find((x) => rest.startsWith(x))) {
    rest = rest.slice(e.length).trimStart();
    led = true;
  }
  // Moved, not doubled: a template that put the headline (with its emoji) after its own words.
  const at = led ? -1 : rest.indexOf(`${emoji} `);
  if (at >= 0) rest = `${rest.slice(0, at)}${rest.slice(at + emoji.length + 1)}`;
  return `${emoji} ${rest}`;
}
