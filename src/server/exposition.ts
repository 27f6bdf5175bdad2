import type { Registry } from "prom-client";

/**
 * The `/metrics` text, rendered once for every scrape that arrives while a rendering is under way: concurrent
 * scrapes share it, so hammering `/metrics` costs one rendering at a time and `/healthz` waits behind at most
 * one. A scrape after the rendering finished gets a new one (metrics are never stale).
 */
export function createExposition(registry: Pick<Registry, "metrics">): () => Promise<string> {
  let rendering: Promise<string> | undefined;
  return () => {
    rendering ??= registry.metrics().finally(() => {
      rendering = undefined;
    });
    return rendering;
  };
}
