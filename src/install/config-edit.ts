import { closestName } from "../config/unknown-keys.ts";
import { Document, isMap, parseDocument } from "yaml";
import { type CatalogField, type CatalogProvider, choiceGroups } from "./catalog.ts";

/** Where the configuration Secret is mounted (deploy/kustomize/base: every key of `mon-config` is a file there). */
export const CONFIG_MOUNT = "/etc/mon";

/** What the installer changes in the configuration file (absent: left as it is). */
export interface ConfigEdits {
  readonly clusterName?: string;
  /** A provider to add or reconfigure, with its options as typed (strings, parsed by the catalog's types). */
  readonly provider?: { readonly name: string; readonly values: Readonly<Record<string, string>> };
  /** Providers to remove (`alert.<name>`, and their credentials). */
  readonly removeProviders?: readonly string[];
  /** `app.proxyURL`; a URL with credentials is stored as the credential `proxy-url`, referenced by `${file:}`. */
  readonly proxyUrl?: string;
  /** PEM text of a CA bundle for outgoing HTTPS: stored as `ca-bundle.pem`, named by `app.caBundlePath`. */
  readonly caBundle?: string;
}

/** Secret keys the installer writes besides provider credentials. */
const PROXY_KEY = "proxy-url";
const CA_KEY = "ca-bundle.pem";

/** The configuration file and the credentials beside it in the configuration Secret (key → value). */
export interface StoredConfig {
  readonly text: string;
  readonly credentials: Readonly<Record<string, string>>;
}

/**
 * Applies `edits` to the stored configuration (spec 4.4): the cluster name; a provider's options from the
 * catalog, each parsed by its type, every credential stored as its own Secret key `<provider>-<field>` and
 * written into the file only as `${file:/etc/mon/<provider>-<field>}`; removed providers with their
 * credentials. Comments and the order of the existing file are kept. Pure; throws Error with one line naming
 * the provider and field when the answers break the catalog's rules (unknown field, a required one missing,
 * not exactly one of a choice group, a field without the fields it needs, a value of the wrong type).
 */
export function editConfig(
  current: StoredConfig,
  edits: ConfigEdits,
  catalog: readonly CatalogProvider[],
): StoredConfig {
  const doc = current.text.trim() ? parseDocument(current.text) : new Document({});
  if (doc.errors.length) throw new Error(`the stored config.yaml does not parse: ${doc.errors[0]!.message}`);
  if (!isMap(doc.contents)) throw new Error("the stored config.yaml is not a mapping");
  const credentials = { ...current.credentials };
  if (edits.clusterName !== undefined) doc.setIn(["app", "clusterName"], edits.clusterName);
  if (edits.proxyUrl !== undefined) {
    delete credentials[PROXY_KEY];
    if (!edits.proxyUrl) doc.deleteIn(["app", "proxyURL"]);
    else if (/^[a-z][a-z0-9+.-]*:\/\/[^/@]*@/i.test(edits.proxyUrl)) {
      credentials[PROXY_KEY] = edits.proxyUrl;
      doc.setIn(["app", "proxyURL"], `\${file:${CONFIG_MOUNT}/${PROXY_KEY}}`);
    } else doc.setIn(["app", "proxyURL"], edits.proxyUrl);
  }
  if (edits.caBundle !== undefined) {
    credentials[CA_KEY] = edits.caBundle;
    doc.setIn(["app", "caBundlePath"], `${CONFIG_MOUNT}/${CA_KEY}`);
  }
  for (const name of edits.removeProviders ?? []) {
    if (doc.hasIn(["alert", name])) doc.deleteIn(["alert", name]);
    for (const key of Object.keys(credentials)) if (key.startsWith(`${name}-`)) delete credentials[key];
  }
  if (edits.provider) {
    const provider = catalog.find((p) => p.name === edits.provider!.name);
    if (!provider) throw new Error(unknownProvider(edits.provider.name, catalog));
    const values = edits.provider.values;
    checkAnswers(provider, values);
    if (doc.hasIn(["alert", provider.name])) doc.deleteIn(["alert", provider.name]);
    for (const key of Object.keys(credentials)) if (key.startsWith(`${provider.name}-`)) delete credentials[key];
    for (const field of provider.fields) {
      const raw = values[field.field];
      if (raw === undefined || raw === "") continue;
      if (field.secret) {
        const key = `${provider.name}-${field.field}`;
        credentials[key] = raw;
        doc.setIn(["alert", provider.name, field.field], `\${file:${CONFIG_MOUNT}/${key}}`);
      } else doc.setIn(["alert", provider.name, field.field], typed(provider.name, field, raw));
    }
  }
  const alert = doc.get("alert");
  if (doc.has("alert") && (!isMap(alert) || alert.items.length === 0)) doc.delete("alert");
  return { text: doc.toString({ lineWidth: 0 }), credentials };
}

/**
 * The questions a provider asks, in order (spec 2.4's guided setup): its required fields, then for each choice
 * group the one field `choose` picks, then every field a set field `requires`. Optional fields are left to flags.
 */
export function questionsFor(
  provider: CatalogProvider,
  choose: (group: readonly CatalogField[]) => CatalogField,
): CatalogField[] {
  const asked: CatalogField[] = provider.fields.filter((f) => f.required);
  for (const group of choiceGroups(provider.fields)) asked.push(choose(group));
  for (let i = 0; i < asked.length; i++)
    for (const need of asked[i]!.requires) {
      const field = provider.fields.find((f) => f.field === need);
      if (field && !asked.includes(field)) asked.push(field);
    }
  return asked;
}

// --- internal ---

/**
 * The answers of one provider against the catalog, each refusal naming what the user typed (`--provider slack
 * --set token`), with the configuration key it becomes. Throws Error.
 */
function checkAnswers(provider: CatalogProvider, values: Readonly<Record<string, string>>): void {
  const where = `--provider ${provider.name}`;
  const key = (field: string) => `alert.${provider.name}.${field}`;
  const set = (name: string) => values[name] !== undefined && values[name] !== "";
  for (const name of Object.keys(values))
    if (!provider.fields.some((f) => f.field === name)) {
      const hint = closestName(
        name,
        provider.fields.map((f) => f.field),
      );
      throw new Error(
        `${where} --set ${name}: no such option${hint ? ` (did you mean ${hint}?)` : ""} (options: ${provider.fields.map((f) => f.field).join(", ")})`,
      );
    }
  for (const f of provider.fields) {
    if (f.required && !set(f.field))
      throw new Error(`${where}: --set ${f.field}=… is required (${key(f.field)} is required: ${f.description})`);
    if (set(f.field))
      for (const need of f.requires)
        if (!set(need))
          throw new Error(`${where}: --set ${f.field} needs --set ${need} too (${key(f.field)} needs ${key(need)})`);
  }
  for (const group of choiceGroups(provider.fields)) {
    const fields = group.map((f) => f.field);
    const chosen = fields.filter(set);
    if (chosen.length !== 1)
      throw new Error(
        `${where}: set exactly one of ${fields.map((f) => `--set ${f}`).join(", ")}${chosen.length ? ` (got ${chosen.join(", ")})` : ""}`,
      );
  }
}

/** `--provider <name>` names no provider of the catalog: the closest name, and where the list is. */
export function unknownProvider(name: string, catalog: readonly CatalogProvider[]): string {
  const hint = closestName(
    name,
    catalog.map((p) => p.name),
  );
  return `--provider ${name}: no alert provider is named ${name}${hint ? ` (did you mean ${hint}?)` : ""}; mon install features lists them`;
}

function typed(provider: string, field: CatalogField, raw: string): unknown {
  const fail = (what: string) =>
    new Error(
      `--provider ${provider} --set ${field.field}: ${field.secret ? "the value" : JSON.stringify(raw)} is not ${what}`,
    );
  const json = () => {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return undefined;
    }
  };
  if (field.type === "number") {
    const n = Number(raw);
    if (!Number.isFinite(n)) throw fail("a number");
    return n;
  }
  if (field.type === "boolean") {
    if (!/^(true|false)$/i.test(raw)) throw fail("true or false");
    return raw.toLowerCase() === "true";
  }
  if (field.type.startsWith("list of")) {
    const parsed = raw.trim().startsWith("[")
      ? json()
      : raw
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
    if (!Array.isArray(parsed)) throw fail("a list (a,b or a JSON list)");
    return field.type === "list of number" ? parsed.map(Number) : parsed;
  }
  if (field.type === "map") {
    if (raw.trim().startsWith("{")) {
      const parsed = json();
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw fail("a map (k=v,k=v or JSON)");
      return parsed;
    }
    const out: Record<string, string> = {};
    for (const pair of raw.split(",").filter((p) => p.trim())) {
      const at = pair.indexOf("=");
      if (at <= 0) throw fail("a map (k=v,k=v or JSON)");
      out[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
    }
    return out;
  }
  return raw;
}
