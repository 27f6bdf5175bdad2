import * as v from "valibot";
import type { Message } from "../model/message.ts";
import { truncate } from "./_kit/http.ts";
import { ends, shortKey } from "./_kit/keys.ts";
import { CredentialUrl, definePager } from "./_kit/pager.ts";

/**
 * Spike.sh webhook (providers.md `spike`): Spike de-duplicates on the title, so the title is fixed per
 * incident (`[<key>] <root>`, built from the key and the root, never from changing counts) and the resolve
 * repeats it with `status: resolve`.
 */
export default definePager({
  name: "spike",
  title: "Spike.sh",
  guide: { credential: "Integrations → Webhook; copy the push-events URL." },
  options: v.object({
    webhookUrl: CredentialUrl("Webhook integration URL `https://hooks.spike.sh/{token}/push-events`"),
  }),
  credentials: ["webhookUrl"],
  url: (o) => o.webhookUrl,
  body: (m) => ({
    title: spikeTitle(m),
    body: truncate(m.text, 10_000),
    status: ends(m) ? "resolve" : "trigger",
    severity: m.mode === "page" ? "sev1" : "sev3",
  }),
});

/** The title Spike keys an incident on: stable for its whole life. */
export function spikeTitle(m: Message): string {
  return `[${shortKey(m.dedupKey, 60)}] ${m.root.kind.toLowerCase()} ${m.root.namespace ? `${m.root.namespace}/` : ""}${m.root.name}`;
}
