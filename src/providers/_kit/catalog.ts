import type { ProviderDefinition } from "./define.ts";
import { PROVIDERS } from "../_registry.gen.ts";

/** One option of a provider as the guided setup shows it (deploy/provider-catalog.tsv). */
export interface ProviderField {
  readonly name: string;
  readonly type: string;
  readonly required: boolean;
  readonly secret: boolean;
  readonly default?: string;
  readonly description: string;
}

/** What each kind receives (spec 6): paging tools and trackers never get summaries, digests or notices. */
const RECEIVES: Readonly<Record<ProviderDefinition["kind"], string>> = {
  chat: "every message: incident announcements, updates and resolves, the startup summary, roll-ups, digests and plain notices",
  info: "every message: incident announcements, updates and resolves, the startup summary, roll-ups, digests and plain notices",
  paging:
    "incident announcements, updates and resolves only — never summaries, digests or plain notices (each page-tier problem of a startup summary or roll-up comes on its own)",
  tracker:
    "incident announcements, updates and resolves only — one issue per incident; never summaries, digests or plain notices",
};

const THREADING: Readonly<Record<ProviderDefinition["threading"], string>> = {
  none: "each message stands alone; the resolve is a message of its own",
  thread: "updates and the resolve continue the announcement's thread",
  edit: "the announcement is edited in place (and the resolve marks it)",
  comment: "updates are comments on the incident's issue; the resolve comments and closes it",
  dedup_key: "every message carries the incident's dedup key, so the receiver keeps them together",
};

/** The providers for debugging (not alerting): `stdout`, what `mon demo` shows. */
export function debugProviders(): ProviderDefinition[] {
  return Object.values(PROVIDERS).filter((d) => d.name === "stdout");
}

/** Every provider definition, sorted by name (the stdout debugging provider left out). */
export function catalogProviders(): ProviderDefinition[] {
  return Object.values(PROVIDERS)
    .filter((d) => d.name !== "stdout")
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** A provider's options read from its valibot schema: type, whether required, default, description, secret. */
export function providerFields(d: ProviderDefinition): ProviderField[] {
  const object = unwrapObject(d.options as unknown as Schema);
  return Object.entries(object?.entries ?? {}).map(([name, schema]) => {
    const optional = schema.type === "optional";
    const inner = optional ? (schema.wrapped as Schema) : schema;
    const fallback = optional ? schema.default : undefined;
    return {
      name,
      type: typeOf(inner),
      required: !optional,
      secret: d.credentials.includes(name),
      ...(fallback !== undefined
        ? { default: typeof fallback === "string" ? fallback : JSON.stringify(fallback) }
        : {}),
      description: descriptionOf(inner) ?? "",
    };
  });
}

/** deploy/provider-catalog.tsv: one row per provider option, with kind, secret flag and choice groups (spec 2.4). */
export function providerCatalogTsv(): string {
  const cell = (s: string) => s.replace(/[\t\n]/g, " ");
  const rows = catalogProviders().flatMap((d) =>
    providerFields(d).map((f) => {
      const group = (d.guide?.oneOf ?? []).findIndex((g) => g.includes(f.name));
      const needs = d.guide?.requires?.[f.name] ?? [];
      return [
        d.name,
        d.kind,
        d.title,
        f.name,
        f.type,
        f.required ? "yes" : "",
        f.secret ? "secret" : "",
        f.default ?? "",
        group >= 0 ? `one_of_${group + 1}:${d.guide!.oneOf![group]!.join("|")}` : "",
        needs.join("|"),
        cell(f.description),
      ].join("\t");
    }),
  );
  return [
    "provider\tkind\ttitle\tfield\ttype\trequired\tsecret\tdefault\tchoice_group\trequires\tdescription",
    ...rows,
    "",
  ].join("\n");
}

/** The generated part of docs/providers/<name>.md: what it receives, the credential, the options, an example. */
export function providerDoc(d: ProviderDefinition): string {
  const fields = providerFields(d);
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  const chosen = new Set((d.guide?.oneOf ?? []).map((g) => g[0]!));
  const example = fields.filter((f) => f.required || chosen.has(f.name));
  const value = (f: ProviderField) =>
    f.secret
      ? `\${file:/etc/mon/secrets/${d.name}-${f.name}}`
      : f.type === "boolean"
        ? "true"
        : f.type === "number"
          ? "1"
          : f.type.startsWith("list")
            ? "[…]"
            : `<${f.name}>`;
  return [
    `# ${d.title} (\`alert.${d.name}\`)`,
    "",
    `Kind: **${d.kind}**. It receives ${RECEIVES[d.kind]}. Threading: ${THREADING[d.threading]}.${d.plainText ? " It shows plain text: `templates` (Pro) rewrite what it gets." : ""}`,
    "",
    "## Credential",
    "",
    d.guide?.credential ?? "None.",
    "",
    "Credential options accept only an absolute `${file:/path}` reference to a file mounted from a Secret (spec 2.4).",
    ...(d.guide?.oneOf?.length || d.guide?.requires ? [""] : []),
    ...(d.guide?.oneOf ?? []).map((g) => `- Set exactly one of ${g.map((n) => `\`${n}\``).join(", ")}.`),
    ...Object.entries(d.guide?.requires ?? {}).map(
      ([k, need]) => `- \`${k}\` needs ${need.map((n) => `\`${n}\``).join(", ")}.`,
    ),
    "",
    "## Options",
    "",
    "| option | type | required | default | meaning |",
    "|---|---|---|---|---|",
    ...fields.map(
      (f) =>
        `| \`${f.name}\` | ${f.type}${f.secret ? " (secret)" : ""} | ${f.required ? "yes" : ""} | ${f.default !== undefined ? `\`${cell(f.default)}\`` : ""} | ${cell(f.description)} |`,
    ),
    "",
    "Every provider also takes `hourlyBudget`, `routes` (Pro), `retry`, `fallback` and `templates` (docs/delivery.md).",
    "",
    "## Example",
    "",
    "```yaml",
    "alert:",
    `  ${d.name}:`,
    ...example.map((f) => `    ${f.name}: ${value(f)}`),
    "```",
    "",
  ].join("\n");
}

// --- internal ---

interface Schema {
  readonly type: string;
  readonly entries?: Record<string, Schema>;
  readonly wrapped?: Schema;
  readonly default?: unknown;
  readonly pipe?: readonly (Schema & { description?: string; kind?: string })[];
  readonly item?: Schema;
  readonly options?: readonly unknown[];
}

function unwrapObject(s: Schema): Schema | undefined {
  if (s.type === "object") return s;
  const first = s.pipe?.[0];
  return first ? unwrapObject(first) : undefined;
}

function typeOf(s: Schema): string {
  const base = s.pipe?.[0] ?? s;
  switch (base.type) {
    case "array":
      return `list of ${typeOf(base.item as Schema)}`;
    case "picklist":
      return `one of ${(base.options ?? []).join(", ")}`;
    case "record":
      return "map";
    case "union":
      return "string";
    default:
      return base.type;
  }
}

function descriptionOf(s: Schema): string | undefined {
  for (const item of s.pipe ?? [])
    if (item.type === "description" && typeof item.description === "string") return item.description;
  return undefined;
}
