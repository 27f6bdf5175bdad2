import type { Registry } from "prom-client";

/** How long one rendering of `/metrics` is served to every scrape, ms. */
export const EXPOSITION_REUSE_MS = 1_000;

/**
 * The `/metrics` text, rendered at most once per second however often it is asked for: concurrent scrapes
 * share one rendering, and scrapes within EXPOSITION_REUSE_MS of it get the same text. Hammering `/metrics`
 * therefore costs one rendering a second and never queues `/healthz` behind it. `now` is a monotonic
 * millisecond source (the runtime's).
 */
export function createExposition(
  registry: Pick<Registry, "metrics">,
  now: () => number = () => performance.now(),
): () => Promise<string> {
  let rendering: Promise<string> | undefined;
  let rendered: { at: number; text: string } | undefined;
  return () => {
    if (rendered && now() - rendered.at < EXPOSITION_REUSE_MS) return Promise.resolve(rendered.text);
    rendering ??= registry.metrics().then(
      (text) => {
        rendered = { at: now(), text };
        rendering = undefined;
        return text;
      },
      (error: unknown) => {
        rendering = undefined;
        throw error;
      },
    );
    return rendering;
  };
}
