import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { featureCatalogTsv } from "../config/catalog.ts";
import type { ConfigProblem } from "../config/errors.ts";
import { checkConfig } from "../config/load.ts";
import { COMPONENTS } from "../deploy/base.gen.ts";
import type { RbacMode } from "../deploy/rbac.ts";
import {
  type Applied,
  applyObjects,
  clearDeactivation,
  deactivateLicense,
  deleteObject,
  describeObject,
  readObject,
} from "./apply.ts";
import { refuseForeign } from "./owner.ts";
import { type CatalogFeature, type CatalogProvider, parseFeatureCatalog, parseProviderCatalog } from "./catalog.ts";
import { CONFIG_MOUNT, type ConfigEdits, editConfig, type StoredConfig } from "./config-edit.ts";
import {
  CATALOG_CONFIGMAP,
  CONFIG_HASH,
  CONFIG_SECRET,
  type InstallObject,
  type InstallShape,
  installObjects,
  joinApiServer,
  LICENSE_HASH,
  LICENSE_SECRET,
  licenseHash,
  SECRETS_ROLE,
} from "./plan.ts";
import type { KubeConnection } from "../kube/connection.ts";
import { VERSION } from "../version.ts";
import { CONFIG_DOMAIN } from "../config-domain.ts";
import { providerCatalogTsv } from "../providers/_kit/catalog.ts";

/** What the installation looks like now (the defaults of `mon install`'s questions). */
export interface Installed {
  /** True when the Deployment exists. */
  readonly exists: boolean;
  readonly config: StoredConfig;
  readonly shape: InstallShape;
  /** The license annotation on the pod template (a key was stored by the installer). */
  readonly licenseHash?: string;
  readonly configHash?: string;
  readonly licensed: boolean;
  /** The Deployment's container environment (literal values only). */
  readonly env: Readonly<Record<string, string>>;
}

/** What `mon install` was told (flags or answers); absent keeps the current installation's value. */
export interface InstallAnswers {
  readonly namespace: string;
  readonly edits: ConfigEdits;
  readonly overlay?: boolean;
  readonly rbacMode?: RbacMode;
  readonly watchSecrets?: boolean;
  readonly image?: string;
  readonly replicas?: number;
  /** Pro HA: two replicas (unless `replicas`) sharing the state volume (the `ha` component). */
  readonly ha?: boolean;
  readonly networkPolicy?: boolean;
  /** More egress ports in the NetworkPolicy (replacing the ones added before). */
  readonly egressPorts?: readonly number[];
  /** `host:port` of the API server for a cluster without a Service proxy (the host-network component); "" removes it. */
  readonly apiServer?: string;
  /** Add or replace the license key, or remove it (deactivated-at on the instance Secret). */
  readonly license?: { readonly action: "set"; readonly key: string } | { readonly action: "remove" };
}

/** What one `mon install` did. */
export interface InstallReport {
  readonly applied: readonly Applied[];
  /** The stored configuration changed (or the license key): the Deployment rolls its pods. */
  readonly rollout: boolean;
  /** The license key was removed; `deactivated` when a binding was released through the instance Secret. */
  readonly licenseRemoved?: { readonly deactivated: boolean };
  readonly warnings: readonly string[];
  /** With `dryRun`: the objects that would be applied; Secrets as `stringData`, `config.yaml` in full, other values as `<N bytes>`. */
  readonly planned?: readonly InstallObject[];
}

/** The catalogs of this release, as the installer caches them in the installed release's ConfigMap. */
export function releaseCatalogs(): { features: string; providers: string } {
  return { features: featureCatalogTsv(), providers: providerCatalogTsv() };
}

/** This release's provider catalog, parsed (the installer's questions). */
export function releaseProviders(): CatalogProvider[] {
  return parseProviderCatalog(providerCatalogTsv());
}

/** Reads the current installation in `namespace` (nothing there: the defaults of a fresh install). */
export async function readInstalled(connection: KubeConnection, namespace: string): Promise<Installed> {
  const secret = await readObject(connection, { kind: "Secret", metadata: { name: CONFIG_SECRET, namespace } });
  const text = (b64: string | undefined) =>
    b64 === undefined ? undefined : Buffer.from(b64, "base64").toString("utf8");
  const data: Record<string, string> = secret?.data ?? {};
  const credentials = Object.fromEntries(
    Object.entries(data)
      .filter(([k]) => k !== "config.yaml")
      .map(([k, v]) => [k, text(v) ?? ""]),
  );
  const deployment = await readObject(connection, { kind: "Deployment", metadata: { name: "mon", namespace } });
  const role = await readObject(connection, {
    kind: "ClusterRole",
    metadata: { name: namespace === "mon" ? "mon" : `mon-${namespace}` },
  });
  const license = await readObject(connection, { kind: "Secret", metadata: { name: LICENSE_SECRET, namespace } });
  const policy = await readObject(connection, { kind: "NetworkPolicy", metadata: { name: "mon", namespace } });
  const container = deployment?.spec?.template?.spec?.containers?.[0];
  const env = new Map<string, string>(
    ((container?.env ?? []) as { name: string; value?: string }[]).map((e) => [e.name, e.value ?? ""]),
  );
  const annotations: Record<string, string> = deployment?.spec?.template?.metadata?.annotations ?? {};
  const full = ((role?.rules ?? []) as { resources?: string[] }[]).some((r) => r.resources?.includes("*"));
  return {
    exists: Boolean(deployment),
    config: { text: text(data["config.yaml"]) ?? "", credentials },
    shape: {
      namespace,
      overlay: env.has("MON_CRD_ENABLED") ? env.get("MON_CRD_ENABLED") === "true" : true,
      rbacMode: role && !full ? "least-privilege" : "full",
      watchSecrets: env.get("MON_WATCH_SECRETS") !== "false",
      image: container?.image ?? `mon:${VERSION}`,
      replicas: deployment?.spec?.replicas ?? 1,
      ha: env.has("MON_DATA_DIR"),
      networkPolicy: Boolean(policy),
      egressPorts: extraEgressPorts(policy),
      apiServer:
        deployment?.spec?.template?.spec?.hostNetwork && env.get("KUBERNETES_SERVICE_HOST")
          ? joinApiServer(env.get("KUBERNETES_SERVICE_HOST")!, env.get("KUBERNETES_SERVICE_PORT") || "443")
          : "",
      version: VERSION,
    },
    ...(annotations[LICENSE_HASH] ? { licenseHash: annotations[LICENSE_HASH] } : {}),
    ...(annotations[CONFIG_HASH] ? { configHash: annotations[CONFIG_HASH] } : {}),
    licensed: Boolean(license),
    env: Object.fromEntries(env),
  };
}

/**
 * `mon install` (spec 4.4, docs/install.md "The installer"): edits the stored configuration, checks it exactly as
 * `mon lint` does (credentials included, read from a private temporary directory that is removed afterwards),
 * and applies the installation: the kustomize base shaped by the answers, the configuration Secret, the license
 * Secret and the catalogs' ConfigMap; a changed configuration or key rolls the Deployment. Removing the key
 * deletes its Secret and sets deactivated-at on the instance Secret, without a rollout: the running leader
 * notices, releases the binding and turns Community. Throws Error with one line per configuration error (never
 * a credential value), or naming the object the API server refused.
 */
export async function runInstall(
  connection: KubeConnection,
  answers: InstallAnswers,
  options: { now: () => number; dryRun?: boolean },
): Promise<InstallReport> {
  // Another tool's installation in the namespace (a Helm release) is not read as ours, let alone written over.
  await refuseForeign(connection, [
    { kind: "Deployment", metadata: { name: "mon", namespace: answers.namespace } },
    { kind: "Secret", metadata: { name: CONFIG_SECRET, namespace: answers.namespace } },
  ]);
  const installed = await readInstalled(connection, answers.namespace);
  const config = editConfig(installed.config, answers.edits, releaseProviders());
  const problems = checkStored(config);
  const errors = problems.filter((p) => p.level === "error");
  if (errors.length) throw new Error(errors.map((p) => installerProblem(p, answers)).join("\n"));
  const shape: InstallShape = {
    ...installed.shape,
    ...(answers.overlay !== undefined ? { overlay: answers.overlay } : {}),
    ...(answers.rbacMode ? { rbacMode: answers.rbacMode } : {}),
    ...(answers.watchSecrets !== undefined ? { watchSecrets: answers.watchSecrets } : {}),
    ...(answers.image ? { image: answers.image } : {}),
    ...(answers.ha !== undefined ? { ha: answers.ha, replicas: answers.ha ? 2 : 1 } : {}),
    ...(answers.replicas !== undefined ? { replicas: answers.replicas } : {}),
    ...(answers.networkPolicy !== undefined ? { networkPolicy: answers.networkPolicy } : {}),
    ...(answers.egressPorts ? { egressPorts: answers.egressPorts } : {}),
    ...(answers.apiServer !== undefined ? { apiServer: answers.apiServer } : {}),
    version: VERSION,
  };
  if (shape.replicas > 1 && !shape.ha)
    throw new Error("--replicas above 1 needs --ha: the replicas share the Pro state volume (docs/leadership.md)");
  const key = answers.license?.action === "set" ? answers.license.key : undefined;
  // A stored key that is new, changed or added back after a removal rolls the pods (MON_LICENSE_KEY is read at
  // start); the same key again changes nothing; a removal keeps the stamp (the running leader notices it).
  let stamp = installed.licenseHash;
  if (key !== undefined) {
    const sha = licenseHash(key);
    if (!(installed.licensed && stamp?.split("@")[0] === sha))
      stamp = `${sha}@${new Date(options.now()).toISOString()}`;
  }
  const objects = installObjects({
    shape,
    config,
    ...(key !== undefined ? { licenseKey: key } : {}),
    ...(stamp ? { licenseStamp: stamp } : {}),
    catalogs: releaseCatalogs(),
  });
  const deployment = objects.find((o) => o.kind === "Deployment");
  const annotations = deployment?.spec.template.metadata.annotations ?? {};
  const rollout =
    installed.exists &&
    (annotations[CONFIG_HASH] !== installed.configHash || annotations[LICENSE_HASH] !== installed.licenseHash) &&
    answers.license?.action !== "remove";
  const warnings = problems.filter((p) => p.level === "warning").map((p) => installerProblem(p, answers));
  await refuseForeign(connection, objects);
  if (options.dryRun) return { applied: [], rollout, warnings, planned: objects.map(redacted) };
  const applied = await applyObjects(connection, objects);
  // Components switched off: their objects go (the state volume stays: it holds the Pro state file).
  const secretsRole =
    answers.namespace === "mon" ? SECRETS_ROLE : SECRETS_ROLE.replace(/^mon/, `mon-${answers.namespace}`);
  for (const [off, kind, name, namespaced] of [
    [!shape.ha && installed.shape.ha, "PodDisruptionBudget", "mon", true],
    [!shape.networkPolicy && installed.shape.networkPolicy, "NetworkPolicy", "mon", true],
    [!shape.watchSecrets, "ClusterRoleBinding", secretsRole, false],
    [!shape.watchSecrets, "ClusterRole", secretsRole, false],
  ] as const) {
    const target = { kind, metadata: { name, ...(namespaced ? { namespace: answers.namespace } : {}) } };
    if (off && (await deleteObject(connection, target)))
      applied.push({ object: describeObject(target), result: "deleted" });
  }
  if (answers.license?.action === "set") await clearDeactivation(connection, answers.namespace);
  let licenseRemoved: InstallReport["licenseRemoved"];
  if (answers.license?.action === "remove") {
    await deleteObject(connection, {
      kind: "Secret",
      metadata: { name: LICENSE_SECRET, namespace: answers.namespace },
    });
    const at = new Date(options.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
    licenseRemoved = { deactivated: await deactivateLicense(connection, answers.namespace, at) };
  }
  return { applied, rollout, warnings, ...(licenseRemoved ? { licenseRemoved } : {}) };
}

/**
 * The feature catalog of the release installed in `namespace` (spec 4.4 `features`, 9.3), from its ConfigMap:
 * informational only. Throws Error when no release is installed there.
 */
export async function installedFeatures(
  connection: KubeConnection,
  namespace: string,
): Promise<{ version: string; features: CatalogFeature[]; providers: CatalogProvider[] }> {
  const map = await readObject(connection, { kind: "ConfigMap", metadata: { name: CATALOG_CONFIGMAP, namespace } });
  if (!map)
    throw new Error(
      `no mon release is installed in namespace ${namespace} (no ConfigMap ${CATALOG_CONFIGMAP}); run mon install`,
    );
  return {
    version: map.metadata?.labels?.["app.kubernetes.io/version"] ?? "unknown",
    features: parseFeatureCatalog(map.data?.["feature-catalog.tsv"] ?? ""),
    providers: parseProviderCatalog(map.data?.["provider-catalog.tsv"] ?? ""),
  };
}

// --- internal ---

/**
 * A problem of the edited configuration as the installer's user reads it (issue 29.15): named by the flag that
 * set the key (`--provider webhook --set url: must be an absolute URL`), or, for what was already stored, by
 * the Secret and the line of its config.yaml. The configuration key follows in parentheses.
 */
function installerProblem(p: ConfigProblem, answers: InstallAnswers): string {
  const message = p.key && p.message.startsWith(`${p.key}: `) ? p.message.slice(p.key.length + 2) : p.message;
  const edits = answers.edits;
  const provider = edits.provider?.name;
  const flags: [boolean, string][] = [
    [provider !== undefined && p.key === `alert.${provider}`, `--provider ${provider}`],
    [
      provider !== undefined && p.key.startsWith(`alert.${provider}.`),
      `--provider ${provider} --set ${p.key.split(".")[2]}`,
    ],
    [edits.clusterName !== undefined && p.key === "app.clusterName", "--cluster-name"],
    [edits.proxyUrl !== undefined && p.key === "app.proxyURL", "--proxy-url"],
    [edits.caBundle !== undefined && p.key === "app.caBundlePath", "--ca-bundle"],
  ];
  const flag = flags.find(([matches]) => matches)?.[1];
  if (flag) return `${flag}: ${message}${p.key ? ` (${p.key})` : ""}`;
  const where = `the stored configuration (Secret ${answers.namespace}/${CONFIG_SECRET}, config.yaml${p.line ? ` line ${p.line}` : ""})`;
  return `${where}: ${p.message}; fix it with mon install's flags or kubectl edit`;
}

/** The ports of the egress rules the installer added after the component's own (`--egress-ports`). */
function extraEgressPorts(policy: InstallObject | undefined): number[] {
  const base = COMPONENTS["network-policy"].resources[0]?.spec?.egress?.length ?? 0;
  const rules = (policy?.spec?.egress ?? []) as { ports?: { port?: number }[] }[];
  return rules.slice(base).flatMap((r) => (r.ports ?? []).map((p) => Number(p.port)));
}

/** Checks the stored configuration with the credentials it references, as the pod will read them. */
function checkStored(config: StoredConfig): readonly ConfigProblem[] {
  const dir = mkdtempSync(join(tmpdir(), "mon-install-"));
  try {
    for (const [key, value] of Object.entries(config.credentials))
      writeFileSync(join(dir, key), value, { mode: 0o600 });
    // Every path into the mounted Secret (credential references, app.caBundlePath) points at the copies.
    const text = config.text.split(`${CONFIG_MOUNT}/`).join(`${dir}/`);
    return checkConfig(text, "config.yaml", {}, CONFIG_DOMAIN).problems;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function redacted(o: InstallObject): InstallObject {
  if (o.kind !== "Secret") return o;
  // As `stringData`: what is shown is text, so the printed Secret is still one the API server accepts.
  const { data, ...rest } = o;
  const stringData = Object.fromEntries(
    Object.entries(data as Record<string, string>).map(([k, v]) => [
      k,
      k === "config.yaml" ? Buffer.from(v, "base64").toString("utf8") : `<${Buffer.from(v, "base64").length} bytes>`,
    ]),
  );
  return { ...rest, stringData };
}

export { describeObject };
