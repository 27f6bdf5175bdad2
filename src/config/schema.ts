import * as v from "valibot";

/**
 * The one schema of mon's configuration file (spec 2.1). Each key carries its default and a one-line
 * description (`v.description`), from which the reference docs are generated.
 * Provider options (`alert.<provider>`) are owned by each provider's own schema (STYLE.md convention 2);
 * here `alert` is a map that the composition root validates provider by provider.
 */
export const ConfigSchema = v.object({
  resyncSeconds: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.check((n) => n === 0 || n >= 30, "must be 0 (off) or at least 30"),
      v.description("Informer relist interval in seconds, a safety net for lost watch events. 0 disables."),
    ),
    300,
  ),
  app: v.optional(
    v.object({
      clusterName: v.optional(v.pipe(v.string(), v.description("Cluster name shown in alerts and in paging dedup keys.")), ""),
      logFormatter: v.optional(
        v.pipe(v.picklist(["text", "json"], "must be text or json"), v.description("Log format: text, or json (one object per line on stderr).")),
        "text",
      ),
      disableStartupMessage: v.optional(v.pipe(v.boolean(), v.description("Silence the welcome message.")), false),
      communityProvider: v.optional(
        v.pipe(v.string(), v.description("Provider kept by Community when several are configured; empty keeps the first by name.")),
        "",
      ),
    }),
    {},
  ),
  healthCheck: v.optional(
    v.object({
      enabled: v.optional(v.pipe(v.boolean(), v.description("Serve the health endpoints.")), true),
      port: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(65535), v.description("Health server port.")), 8060),
    }),
    {},
  ),
  alert: v.optional(
    v.pipe(
      v.record(v.string(), v.record(v.string(), v.unknown())),
      v.description("Alert providers, one key per provider (spec 2.4)."),
    ),
    {},
  ),
});

/** The validated configuration, defaults filled in, frozen after loading. */
export type Config = v.InferOutput<typeof ConfigSchema>;

/** Keys that once existed and are now ignored with a warning (spec 2.1, 9.5). */
export const REMOVED_KEYS: Readonly<Record<string, string>> = {
  "activeProbeMonitor.recoveryThreshold": "removed: a probe resolves on its first success",
  "alert.line": "removed: the LINE Notify provider no longer exists; the key is ignored",
};
