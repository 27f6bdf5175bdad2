import * as v from "valibot";
import type { ConfigError, ConfigProblem } from "./errors.ts";
import { isFileReference, readCredential } from "./expand.ts";
import { issueMessage } from "./messages.ts";
import { ProviderCommonSchema } from "./schema.ts";
import { objectEntries } from "./describe.ts";
import { closestName, suggestKey, unknownKeys } from "./unknown-keys.ts";

/**
 * What the configuration needs to know of one provider to check `alert.<name>` (spec 2.4): its option schema
 * (the provider owns it; STYLE.md convention 2) and which options are credentials. A ProviderDefinition is one.
 */
export interface ProviderSchema {
  readonly options: v.GenericSchema;
  /** Option keys that accept only `${file:/absolute/path}` (a map of them: each value). */
  readonly credentials: readonly string[];
  /** Credential keys that may be inline when they carry no credential (a plain receiver URL). */
  readonly credentialsMayBeInline?: readonly string[];
}

/** Provider schemas by provider name: the generated registry in the product, any subset in tests. */
export type ProviderSchemas = Readonly<Record<string, ProviderSchema>>;

/** Settings every provider has besides its own options (spec 2.4), validated, defaults filled in. */
export type ProviderCommon = v.InferOutput<typeof ProviderCommonSchema>;

/** One configured provider after validation: its name, the common settings and its own options (credentials read). */
export interface ProviderSettings {
  readonly name: string;
  readonly common: ProviderCommon;
  readonly options: Readonly<Record<string, unknown>>;
}

/** Reports a problem of `alert.*` against its dotted key; the caller adds file and line. */
export type AddProblem = (
  level: ConfigProblem["level"],
  rule: ConfigProblem["rule"],
  key: string,
  message: string,
) => void;

/**
 * Checks the `alert` section (spec 2.1, 2.4) and returns the providers that validated, sorted by name.
 * - `alert.<unknown>`: a warning with a suggestion for typos (spec 2.1), the entry left out;
 * - unknown keys anywhere inside a provider, in its own options, `routes` items and `retry`: warnings;
 * - credentials: `${file:}` references are read; inline values are errors, as is a URL option that carries a
 *   credential inline (user:password@ or a token in its query) unless given through `${file:}`;
 * - the common settings and the provider's own options against their schemas; a `fallback` naming no other
 *   configured provider. A provider with any error is left out.
 */
export function checkAlert(alert: unknown, schemas: ProviderSchemas, add: AddProblem): ProviderSettings[] {
  if (alert === undefined || alert === null) return [];
  if (!isRecord(alert)) {
    add("error", "invalid_value", "alert", "alert: must be a mapping of provider names to their settings");
    return [];
  }
  const names = Object.keys(alert).sort();
  const out: ProviderSettings[] = [];
  for (const name of names) {
    const key = `alert.${name}`;
    const schema = schemas[name];
    if (!schema) {
      const hint = closestName(name, Object.keys(schemas));
      add(
        "warning",
        "provider_unknown",
        key,
        `unknown provider ${key}${hint ? ` (did you mean ${hint}?)` : ""}; it is ignored`,
      );
      continue;
    }
    const raw = alert[name];
    if (!isRecord(raw)) {
      add("error", "invalid_value", key, `${key}: must be a mapping of keys to values`);
      continue;
    }
    const settings = checkProvider(name, { ...raw }, schema, names, add);
    if (settings) out.push(settings);
  }
  return out;
}

// --- internal ---

/** The common keys of ProviderCommonSchema with the provider's own, for unknown-key checks over both at once. */
function combined(schema: ProviderSchema): v.GenericSchema {
  const own = (objectEntries(schema.options) ?? {}) as v.ObjectEntries;
  return v.object({ ...ProviderCommonSchema.entries, ...own });
}

function checkProvider(
  name: string,
  raw: Record<string, unknown>,
  schema: ProviderSchema,
  configured: readonly string[],
  add: AddProblem,
): ProviderSettings | undefined {
  const key = `alert.${name}`;
  const all = combined(schema);
  for (const unknown of unknownKeys(all, raw)) {
    const hint = suggestKey(all, unknown);
    add(
      "warning",
      "unknown_key",
      `${key}.${unknown}`,
      `unknown key ${key}.${unknown}${hint ? ` (did you mean ${hint}?)` : ""}`,
    );
  }
  const commonRaw: Record<string, unknown> = {};
  for (const k of Object.keys(ProviderCommonSchema.entries)) {
    if (k in raw) {
      commonRaw[k] = raw[k];
      delete raw[k];
    }
  }
  // Inline URLs are judged before `${file:}` references are replaced by what their files hold.
  let failed = !refuseCredentialUrls(key, raw, schema, add);
  failed = !resolveCredentials(key, raw, schema, add) || failed;

  const common = v.safeParse(ProviderCommonSchema, commonRaw);
  if (!common.success) {
    failed = true;
    for (const issue of common.issues) {
      const path = `${key}.${v.getDotPath(issue) ?? ""}`;
      add("error", "provider_invalid", path, `${path}: ${issueMessage(issue)}`);
    }
  } else if (
    common.output.fallback !== undefined &&
    (common.output.fallback === name || !configured.includes(common.output.fallback))
  ) {
    failed = true;
    add(
      "error",
      "provider_invalid",
      `${key}.fallback`,
      `${key}.fallback: ${common.output.fallback === name ? "a provider cannot be its own fallback" : `names ${common.output.fallback}, which is not configured under alert`}`,
    );
  }
  const parsed = v.safeParse(schema.options, raw);
  if (!parsed.success) {
    for (const issue of parsed.issues) {
      const path = v.getDotPath(issue);
      const full = path ? `${key}.${path}` : key;
      const secret = schema.credentials.some((c) => path === c || path?.startsWith(`${c}.`));
      add("error", "provider_invalid", full, `${full}: ${issueMessage(issue, secret)}`);
    }
    return undefined;
  }
  if (failed || !common.success) return undefined;
  return { name, common: common.output, options: parsed.output as Record<string, unknown> };
}

/** Reads `${file:}` credentials into `raw`; an inline credential or an unreadable file is an error. False on error. */
function resolveCredentials(
  key: string,
  raw: Record<string, unknown>,
  schema: ProviderSchema,
  add: AddProblem,
): boolean {
  let ok = true;
  for (const field of schema.credentials) {
    const value = raw[field];
    const values =
      typeof value === "string"
        ? [[field, value] as const]
        : isRecord(value)
          ? Object.entries(value).map(([k, x]) => [`${field}.${k}`, x] as const)
          : [];
    if (values.length === 0 && value !== undefined) {
      add("error", "provider_invalid", `${key}.${field}`, `${key}.${field}: must be a string`);
      ok = false;
    }
    for (const [path, item] of values) {
      if (typeof item !== "string") continue;
      const itemKey = `${key}.${path}`;
      if (isFileReference(item)) {
        try {
          setPath(raw, path, readCredential(item, itemKey));
        } catch (error) {
          ok = false;
          add("error", (error as ConfigError).rule, itemKey, (error as ConfigError).problem.message);
        }
      } else if (!schema.credentialsMayBeInline?.includes(field)) {
        ok = false;
        add(
          "error",
          "credential_not_file_ref",
          itemKey,
          `${itemKey}: credentials must be given as \${file:/absolute/path} (a file mounted from a Secret)`,
        );
      }
    }
  }
  return ok;
}

/**
 * A URL written inline in the configuration that carries a credential (spec 2.4: credentials only through
 * `${file:}`; a ConfigMap is disclosed): user:password@ or a query parameter named like a token.
 */
function refuseCredentialUrls(
  key: string,
  raw: Record<string, unknown>,
  schema: ProviderSchema,
  add: AddProblem,
): boolean {
  let ok = true;
  for (const [field, value] of Object.entries(raw)) {
    if (typeof value !== "string") continue;
    if (schema.credentials.includes(field) && !schema.credentialsMayBeInline?.includes(field)) continue;
    const inline = inlineCredential(value);
    if (!inline) continue;
    ok = false;
    add(
      "error",
      "credential_not_file_ref",
      `${key}.${field}`,
      `${key}.${field}: this URL carries a credential (${inline}); give the whole URL as \${file:/absolute/path} (a file mounted from a Secret)`,
    );
  }
  return ok;
}

const CREDENTIAL_PARAMS =
  /^(access_?token|token|api[_-]?key|apikey|key|secret|client_secret|password|passwd|pwd|pass|sig|signature|auth|code|credential|private_token)$/i;

/** What makes `value` an inline credential URL (`user:password@`, `?token=`), or undefined. */
export function inlineCredential(value: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || !URL.canParse(value)) return undefined;
  const url = new URL(value);
  if (url.password || (url.username && /^https?:$/.test(url.protocol))) return "user information before @";
  for (const name of url.searchParams.keys()) {
    if (CREDENTIAL_PARAMS.test(name)) return `the query parameter ${name}`;
  }
  return undefined;
}

function setPath(target: Record<string, unknown>, path: string, value: string): void {
  const [head, tail] = path.split(".", 2) as [string, string | undefined];
  if (tail === undefined) target[head] = value;
  else target[head] = { ...(target[head] as Record<string, unknown>), [tail]: value };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
