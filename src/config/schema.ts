import { TIER_NAMES } from "../model/severity.ts";
import type { Route, SilenceRule } from "../model/rules.ts";
import { isIP } from "node:net";
import * as v from "valibot";
import { isValidDuration } from "./duration.ts";
import { parseTemplate } from "./template.ts";

/**
 * Metadata every documented key may carry: `pro` (takes effect only with a Pro license, spec 1.10),
 * `feature` (an id of deploy/feature-catalog.tsv) with `dependsOn`, `sensitive` (`file`: only an absolute
 * `${file:/path}` reference is accepted; `fileIfCredentials`: a value carrying credentials must be one;
 * `secret`: never logged).
 */
export interface KeyMeta {
  readonly pro?: boolean;
  /** For a Pro key: what it still does in Community (lint says so instead of "no effect"). */
  readonly inCommunity?: string;
  readonly feature?: string;
  readonly dependsOn?: readonly string[];
  readonly sensitive?: "file" | "fileIfCredentials" | "secret";
  /** How a string value is read, for the reference table: `url`, `severity`, `template`, `regex`, `duration`, `host:port`. */
  readonly format?: string;
}

/** Documents a key: its one-line description and metadata travel with the schema (docs, catalog, JSON Schema). */
function doc<const S extends v.GenericSchema>(schema: S, description: string, meta: KeyMeta = {}) {
  return v.pipe(schema, v.description(description), v.metadata({ ...meta }));
}

/** Severity values of severityByReason / severityByOwnerKind (spec 2.1), accepted in any letter case. */
export const SEVERITIES = TIER_NAMES;

const Severity = v.pipe(
  v.string(),
  v.check(
    (s) => (SEVERITIES as readonly string[]).includes(s.toLowerCase()),
    `must be one of ${SEVERITIES.join(", ")} (any letter case)`,
  ),
  v.transform((s) => s.toLowerCase() as (typeof SEVERITIES)[number]),
  v.metadata({ format: "severity" }),
);

/** A list of names or substrings: an empty entry would match everything or nothing, so it is refused. */
const stringList = v.array(v.pipe(v.string(), v.minLength(1, "must not be empty")));

/** An include list, or an exclude list when every entry starts with `!`; never both (spec 2.1). */
const includeOrExclude = (what: string) =>
  v.pipe(
    stringList,
    v.check((list) => !list.includes("!"), `a lone ! names no ${what.replace(/s$/, "")}`),
    v.check(
      (list) => list.every((s) => s.startsWith("!")) || list.every((s) => !s.startsWith("!")),
      `cannot mix included and excluded (!) ${what}`,
    ),
  );

const Regex = v.pipe(
  v.string(),
  v.check((s) => {
    try {
      new RegExp(s);
      return true;
    } catch {
      return false;
    }
  }, "is not a valid regular expression"),
  v.metadata({ format: "regex" }),
);

const HttpUrl = v.pipe(
  v.string(),
  v.check((s) => /^https?:\/\/[^\s/]+/i.test(s) && URL.canParse(s), "must be an absolute http or https URL"),
  v.metadata({ format: "url" }),
);

const Template = v.pipe(
  v.string(),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const parsed = parseTemplate(dataset.value);
    if (!parsed.ok) addIssue({ message: `template does not parse: ${parsed.error}` });
  }),
  v.metadata({ format: "template" }),
);

const Duration = v.pipe(
  v.string(),
  v.check(isValidDuration, 'must be a duration such as "30s", "5m" or "1m30s"'),
  v.metadata({ format: "duration" }),
);

/** One silence rule (spec 2.2): every field optional, at least one set; a rule matches when every field it sets matches. */
export const SilenceRuleSchema = v.pipe(
  v.object({
    namespaces: v.optional(doc(stringList, "Namespaces the rule applies to.")),
    reasons: v.optional(doc(stringList, "Failure reasons the rule applies to.")),
    podNamePatterns: v.optional(doc(v.array(Regex), "Regular expressions matched against pod names.")),
    containerNames: v.optional(doc(stringList, "Container names.")),
    containerMessages: v.optional(doc(stringList, "Case-sensitive substrings of container messages.")),
    eventMessages: v.optional(doc(stringList, "Case-sensitive substrings of Event messages.")),
    nodeReasons: v.optional(doc(stringList, "Node condition reasons.")),
    nodeMessages: v.optional(doc(stringList, "Case-sensitive substrings of node messages.")),
  }),
  v.check(
    (rule) => Object.values(rule).some((value) => Array.isArray(value) && value.length > 0),
    "an empty silence rule would silence everything and is rejected",
  ),
) satisfies v.GenericSchema<unknown, SilenceRule>;

const LabelSelector = v.object({
  matchLabels: v.optional(v.record(v.string(), v.string())),
  matchExpressions: v.optional(
    v.array(
      v.object({
        key: v.string(),
        operator: v.picklist(["In", "NotIn", "Exists", "DoesNotExist"]),
        values: v.optional(stringList),
      }),
    ),
  ),
});

const HostPort = v.pipe(
  v.string(),
  v.regex(/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, "must be host:port"),
  v.metadata({ format: "host:port" }),
);

const ProbeMonitor = v.object({
  enabled: v.optional(doc(v.boolean(), "Run active probes.", { pro: true, feature: "activeProbeMonitor" }), false),
  intervalSeconds: v.optional(doc(v.pipe(v.number(), v.integer(), v.minValue(1)), "Seconds between probe rounds."), 30),
  timeoutSeconds: v.optional(doc(v.pipe(v.number(), v.integer(), v.minValue(1)), "Timeout per probe in seconds."), 5),
  failureThreshold: v.optional(
    doc(
      v.pipe(v.number(), v.integer(), v.minValue(1)),
      "Consecutive failures before alerting; a probe resolves on its first success.",
    ),
    3,
  ),
  autoServices: v.optional(
    doc(v.boolean(), "TCP-probe each ClusterIP Service's first port from the inventory (at most 200 per round).", {
      feature: "activeProbeMonitor.autoServices",
      dependsOn: ["activeProbeMonitor"],
    }),
    false,
  ),
  excludeNamespaces: v.optional(doc(stringList, "Namespaces skipped by autoServices and autoDependencies."), []),
  autoDependencies: v.optional(
    doc(v.boolean(), "TCP-probe external host:port dependencies named in Pod environment values.", {
      feature: "activeProbeMonitor.autoDependencies",
      dependsOn: ["activeProbeMonitor"],
    }),
    false,
  ),
  http: v.optional(
    doc(
      v.array(
        v.object({
          name: v.pipe(v.string(), v.minLength(1, "must not be empty")),
          url: HttpUrl,
          expectedStatus: v.optional(v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(599))),
          latencyWarningMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
          latencyCriticalMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
        }),
      ),
      "HTTP targets: name, url, expectedStatus, latencyWarningMs, latencyCriticalMs.",
    ),
    [],
  ),
  tcp: v.optional(
    doc(
      v.array(v.object({ name: v.pipe(v.string(), v.minLength(1, "must not be empty")), address: HostPort })),
      "TCP targets: name, address (host:port).",
    ),
    [],
  ),
  dns: v.optional(
    doc(
      v.array(
        v.object({
          name: v.pipe(v.string(), v.minLength(1, "must not be empty")),
          host: v.pipe(v.string(), v.minLength(1, "must not be empty")),
        }),
      ),
      "DNS targets: name, host.",
    ),
    [],
  ),
});

/**
 * Route of a provider (spec 2.4, Pro): every field it sets must match; reasons and owners compare
 * case-insensitively. A route that sets nothing (a misspelled field) would match everything, so it is refused.
 */
export const RouteSchema = v.pipe(
  v.object({
    namespaces: v.optional(stringList),
    severities: v.optional(v.array(Severity)),
    reasons: v.optional(stringList),
    owners: v.optional(stringList),
  }),
  v.check(
    (route) => Object.values(route).some((value) => Array.isArray(value) && value.length > 0),
    "a route must set namespaces, severities, reasons or owners (an empty route would match everything)",
  ),
) satisfies v.GenericSchema<unknown, Route>;

/** Settings every provider has besides its own options (spec 2.4). */
export const ProviderCommonSchema = v.object({
  hourlyBudget: v.optional(
    doc(
      v.pipe(v.number(), v.integer(), v.minValue(0, "must be 0 (unlimited) or more")),
      "Most new conversations announced per hour; 0 is unlimited.",
    ),
    60,
  ),
  routes: v.optional(
    doc(
      v.array(RouteSchema),
      "Routes: namespaces, severities, reasons, owners; a route matches when every field it sets matches the root or any finding. Without routes the provider gets everything.",
      { pro: true, feature: "routes" },
    ),
  ),
  retry: v.optional(
    doc(
      v.object({
        maxAttempts: v.optional(
          doc(v.pipe(v.number(), v.integer(), v.minValue(1)), "Attempts before giving up (within the 24 h window)."),
        ),
        delay: v.optional(doc(Duration, "Fixed delay between attempts, e.g. 30s.")),
      }),
      "Retry count and delay for transient failures.",
    ),
  ),
  fallback: v.optional(
    doc(
      v.pipe(v.string(), v.minLength(1)),
      "Provider that gets the message when this one fails permanently or runs out of retries.",
      { feature: "fallback" },
    ),
  ),
  templates: v.optional(
    doc(v.record(v.string(), Template), "Per-provider override of the global templates.", { pro: true }),
  ),
});

/**
 * The one schema of mon's configuration file (spec 2.1–2.4). Each key carries its default, a one-line
 * description and metadata (KeyMeta); docs/configuration.md, deploy/feature-catalog.tsv and
 * deploy/config.schema.json are generated from it (scripts/gen-config-docs.ts). Provider options
 * (`alert.<provider>`) are each provider's own schema plus ProviderCommonSchema, checked by config/alert.ts.
 */
export const ConfigSchema = v.pipe(
  v.object({
    resyncSeconds: v.optional(
      doc(
        v.pipe(
          v.number(),
          v.integer(),
          v.check((n) => n === 0 || n >= 30, "must be 0 (off) or at least 30"),
        ),
        "Informer relist interval in seconds, a safety net for lost watch events; 0 disables.",
      ),
      300,
    ),
    namespaces: v.optional(
      doc(
        includeOrExclude("namespaces"),
        "Namespaces to deliver; an exclude list when every entry starts with ! (quote them in YAML).",
      ),
    ),
    namespaceSelector: v.optional(
      doc(
        LabelSelector,
        "Pick namespaces by label (matchLabels, matchExpressions); instead of namespaces, not with it.",
      ),
    ),
    reasons: v.optional(
      doc(includeOrExclude("reasons"), "Reasons to deliver; an exclude list when every entry starts with !."),
    ),
    runbooks: v.optional(
      doc(
        v.record(v.string(), HttpUrl),
        "Reason (any letter case) → absolute http(s) URL shown as 'Runbook: <url>' after the next steps of incidents rooted at it.",
        { pro: true, feature: "runbooks" },
      ),
    ),
    templates: v.optional(
      doc(
        v.record(v.string(), Template),
        "Reason → text template for plain-text providers (email, ntfy, Pushbullet, Pushover, SNS, Twilio, stdout): {{.Message}}, {{.Text}}.",
        { pro: true, feature: "templates" },
      ),
    ),
    severityByReason: v.optional(
      doc(
        v.record(v.string(), Severity),
        "Reason → severity override (keys case-insensitive); checked before severityByOwnerKind.",
        { pro: true, feature: "severityByReason" },
      ),
    ),
    severityByOwnerKind: v.optional(
      doc(v.record(v.string(), Severity), "Owner kind → severity override (keys case-insensitive).", {
        pro: true,
        feature: "severityByOwnerKind",
      }),
    ),
    maintenance: v.optional(
      v.object({
        enabled: v.optional(
          doc(v.boolean(), "Honour maintenance annotations.", { pro: true, feature: "maintenance" }),
          true,
        ),
        annotation: v.optional(
          doc(v.pipe(v.string(), v.minLength(1)), "Annotation marking deliberate maintenance."),
          "mon.io/maintenance",
        ),
        untilAnnotation: v.optional(
          doc(v.pipe(v.string(), v.minLength(1)), "Optional RFC 3339 expiry annotation."),
          "mon.io/maintenance-until",
        ),
      }),
      {},
    ),
    ignoreContainerNames: v.optional(doc(stringList, "Deprecated: becomes one silence rule on containerNames.")),
    ignorePodNames: v.optional(doc(v.array(Regex), "Deprecated: becomes one silence rule on podNamePatterns.")),
    ignoreContainerMessages: v.optional(doc(stringList, "Deprecated: becomes one silence rule on containerMessages.")),
    ignoreNodeReasons: v.optional(doc(stringList, "Deprecated: becomes one silence rule on nodeReasons.")),
    ignoreNodeMessages: v.optional(doc(stringList, "Deprecated: becomes one silence rule on nodeMessages.")),
    silences: v.optional(doc(v.array(SilenceRuleSchema), "Silence rules (spec 2.2).", { feature: "silences" }), []),
    app: v.optional(
      v.object({
        proxyURL: v.optional(
          doc(HttpUrl, "Proxy for outgoing HTTP; a URL with credentials must be a ${file:/path} reference.", {
            sensitive: "fileIfCredentials",
          }),
        ),
        clusterName: v.optional(doc(v.string(), "Cluster name shown in alerts and in paging dedup keys."), ""),
        disableStartupMessage: v.optional(
          doc(v.boolean(), "Silence the welcome message (only: notices of what mon cannot see are always sent)."),
          false,
        ),
        logFormatter: v.optional(
          doc(
            v.picklist(["text", "json"], "must be text or json"),
            "Log format: text, or json (one JSON object per line on stderr).",
          ),
          "text",
        ),
        insecureSkipTLSVerify: v.optional(doc(v.boolean(), "Skip TLS verification on outbound HTTP."), false),
        caBundlePath: v.optional(
          doc(
            v.pipe(v.string(), v.minLength(1)),
            "PEM CA bundle for outbound HTTP; a missing or invalid bundle fails startup.",
          ),
        ),
        hideProHints: v.optional(
          doc(v.boolean(), "Remove the one-line note naming what Pro would add from Community messages."),
          false,
        ),
        communityProvider: v.optional(
          doc(
            v.string(),
            "Provider kept by Community when several are configured; empty keeps a chat provider over an informational one over a tracker over a pager (ties by name).",
          ),
          "",
        ),
      }),
      {},
    ),
    kubelet: v.optional(
      v.object({
        insecureSkipVerify: v.optional(
          doc(
            v.boolean(),
            "Skip kubelet serving-certificate verification for node stats reads (warned at startup; mounted configuration only).",
          ),
          false,
        ),
      }),
      {},
    ),
    watch: v.optional(
      v.object({
        secrets: v.optional(
          doc(
            v.boolean(),
            "Watch Secrets (values hashed, never stored; a tls.crt keeps its expiry); false lists Secret as disabled_by_config in coverage, and the expiry of TLS Secrets cannot be verified (cert-manager Certificates still are).",
            { feature: "watch.secrets" },
          ),
          true,
        ),
      }),
      {},
    ),
    healthCheck: v.optional(
      v.object({
        enabled: v.optional(
          doc(v.boolean(), "Serve the health endpoints (/healthz, /readyz, /health, /metrics).", {
            feature: "healthCheck",
          }),
          true,
        ),
        port: v.optional(
          doc(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535)), "Health server port."),
          8060,
        ),
        address: v.optional(
          doc(
            v.pipe(
              v.string(),
              v.check(
                (s) => isIP(s) !== 0 || /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(s),
                "must be an IP address or a host name, without a port (0.0.0.0, ::, 127.0.0.1, localhost)",
              ),
            ),
            "Address the health server binds; unset: all interfaces in a cluster (the kubelet probes the pod), 127.0.0.1 when mon runs with a kubeconfig.",
          ),
        ),
        statusEndpoint: v.optional(
          doc(v.boolean(), "Serve /status; needs healthCheck.enabled; not settable in the overlay.", {
            pro: true,
            inCommunity:
              "/status is served in its text form with its Edition section; ?format=json answers 402 (pro_required)",
            feature: "healthCheck.statusEndpoint",
            dependsOn: ["healthCheck"],
          }),
          false,
        ),
        diagnostics: v.optional(
          v.object({
            enabled: v.optional(
              doc(
                v.boolean(),
                "Serve /incidents, /deadletters and /test-alert on the health port, behind a bearer token.",
                { feature: "healthCheck.diagnostics", dependsOn: ["healthCheck"] },
              ),
              false,
            ),
            token: v.optional(
              doc(
                v.pipe(v.string(), v.minLength(16, "must be at least 16 characters")),
                "Bearer token of the diagnostics endpoints; must be a ${file:/absolute/path} reference.",
                { sensitive: "file" },
              ),
            ),
          }),
          {},
        ),
      }),
      {},
    ),
    activeProbeMonitor: v.optional(ProbeMonitor, {}),
    heartbeatMonitor: v.optional(
      v.object({
        enabled: v.optional(
          doc(v.boolean(), "Send pings to a health-check URL (dead man's switch).", {
            pro: true,
            feature: "heartbeatMonitor",
          }),
          false,
        ),
        interval: v.optional(
          doc(v.pipe(v.number(), v.integer(), v.minValue(0, "cannot be negative")), "Seconds between pings."),
          300,
        ),
        url: v.optional(doc(HttpUrl, "Ping URL; must be a ${file:/absolute/path} reference.", { sensitive: "file" })),
      }),
      {},
    ),
    auditLog: v.optional(
      v.object({
        enabled: v.optional(
          doc(v.boolean(), "One structured JSON entry per incident decision.", { pro: true, feature: "auditLog" }),
          true,
        ),
        output: v.optional(
          doc(
            v.pipe(v.string(), v.minLength(1, "must be stdout or a file path")),
            "Where entries go: stdout, or a file path, absolute or relative to mon's working directory (10 MiB, then renamed to <path>.1).",
          ),
          "stdout",
        ),
      }),
      {},
    ),
    crd: v.optional(
      v.object({
        enabled: v.optional(
          doc(
            v.boolean(),
            "Watch MonConfig overlays in mon's namespace, merge them over this file and restart in process on change (MON_CRD_ENABLED overrides).",
            {
              feature: "crd",
            },
          ),
          false,
        ),
      }),
      {},
    ),
    license: v.optional(
      v.object({
        key: v.optional(
          doc(v.string(), "License key; use ${MON_LICENSE_KEY} (the variable wins). Never logged.", {
            sensitive: "secret",
            feature: "license",
          }),
        ),
      }),
      {},
    ),
    upgrader: v.optional(
      v.object({
        disableUpdateCheck: v.optional(doc(v.boolean(), "Disable the new-version check at startup."), false),
      }),
      {},
    ),
    telemetry: v.optional(
      v.object({
        enabled: v.optional(
          doc(v.boolean(), "Send adoption heartbeats (MON_TELEMETRY=false disables).", { feature: "telemetry" }),
          true,
        ),
      }),
      {},
    ),
    alert: v.optional(
      doc(
        v.record(v.string(), v.record(v.string(), v.unknown())),
        "Alert providers, one key per provider (spec 2.4): the provider's options plus hourlyBudget, routes, retry, fallback, templates.",
      ),
      {},
    ),
  }),
  v.forward(
    v.check((c) => !(c.namespaces?.length && c.namespaceSelector), "use namespaces or namespaceSelector, not both"),
    ["namespaceSelector"],
  ),
);

/**
 * The validated configuration, defaults filled in, frozen after loading. `alert` is not part of it: the
 * providers are checked against their own schemas and come as `LoadedConfig.providers`.
 */
export type Config = Omit<v.InferOutput<typeof ConfigSchema>, "alert">;

/** A silence rule after validation: the model's (model/rules.ts), checked where SilenceRuleSchema is declared. */
export type { SilenceRule };

/** True when A and B name the same fields: a schema field the model lacks (or the reverse) fails to compile. */
type SameFields<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : false;
// One name, one type (issue 31.4): the validated shapes are the model's, field for field.
export const SCHEMAS_ARE_THE_MODEL: [
  SameFields<v.InferOutput<typeof RouteSchema>, Route>,
  SameFields<v.InferOutput<typeof SilenceRuleSchema>, SilenceRule>,
] = [true, true];

/** Keys that once existed and are now ignored with a warning (spec 2.1, 9.5). */
export const REMOVED_KEYS: Readonly<Record<string, string>> = {
  "activeProbeMonitor.recoveryThreshold": "removed: a probe resolves on its first success",
  "alert.line": "removed: the LINE Notify provider no longer exists; the key is ignored",
};

/** Deprecated `ignore*` lists and the silence-rule field each becomes (spec 2.1, 9.5). */
export const DEPRECATED_IGNORE_LISTS: Readonly<Record<string, keyof SilenceRule>> = {
  ignoreContainerNames: "containerNames",
  ignorePodNames: "podNamePatterns",
  ignoreContainerMessages: "containerMessages",
  ignoreNodeReasons: "nodeReasons",
  ignoreNodeMessages: "nodeMessages",
};
