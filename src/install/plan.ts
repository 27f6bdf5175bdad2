import { createHash } from "node:crypto";
import { BASE_MANIFESTS, COMPONENTS } from "../deploy/base.gen.ts";
import { clusterRules, namespaceRules, type RbacMode } from "../deploy/rbac.ts";
import type { StoredConfig } from "./config-edit.ts";

/** A Kubernetes object as the installer writes it (JSON). */
export interface InstallObject {
  readonly kind: string;
  metadata: { name: string; namespace?: string } & Record<string, any>;
  [field: string]: any;
}

/** The configuration Secret (key config.yaml and one key per credential), mounted at /etc/mon by the base. */
export const CONFIG_SECRET = "mon-config";
/** The base's ClusterRole (and binding) listing Secrets cluster-wide; absent with watch.secrets false. */
export const SECRETS_ROLE = "mon-secrets";
/** The license key's Secret (key `key`), read by the base's Deployment as MON_LICENSE_KEY. */
export const LICENSE_SECRET = "mon-license";
/** The catalogs of the installed release (spec 4.4, 9.3), read by `mon install features`. */
export const CATALOG_CONFIGMAP = "mon-catalog";
/** Pod template annotations whose change rolls the Deployment (the configuration, the license key). */
export const CONFIG_HASH = "mon.io/config-sha256";
export const LICENSE_HASH = "mon.io/license-sha256";

/** How the installation is shaped (the answers of `mon install`, with the current installation's values as defaults). */
export interface InstallShape {
  readonly namespace: string;
  readonly overlay: boolean;
  readonly rbacMode: RbacMode;
  readonly watchSecrets: boolean;
  readonly image: string;
  readonly replicas: number;
  /** The `ha` component (Pro): the state volume, MON_DATA_DIR, the same-node affinity, a PodDisruptionBudget. */
  readonly ha: boolean;
  /** The `network-policy` component. */
  readonly networkPolicy: boolean;
  /** More TCP ports mon may reach out to, as one more egress rule of the NetworkPolicy (proxy, providers). */
  readonly egressPorts: readonly number[];
  /**
   * The `host-network` component with the API server at this `host:port` (clusters without a Service proxy),
   * or "" for the standard in-cluster path through the `kubernetes` Service.
   */
  readonly apiServer: string;
  readonly version: string;
}

/**
 * Every object `mon install` applies (spec 4.4, 5.5, 5.6), from the kustomize base inside the binary
 * (src/deploy/base.gen.ts) shaped by `shape`: the namespace (every namespaced object and every binding's
 * subject moved to it), the RBAC of `rbacMode` and `watchSecrets` (no Secret permission at all when false),
 * the MonConfig CRD and its grant when `overlay`, the image and replicas, MON_CRD_ENABLED and
 * MON_WATCH_SECRETS, and the pod template annotations that roll the Deployment when the stored configuration or
 * the license key changed; then the configuration Secret, the license Secret when `licenseKey` is given, and
 * the catalogs' ConfigMap. Pure.
 */
export function installObjects(input: {
  shape: InstallShape;
  config: StoredConfig;
  /** The license key to store; undefined leaves the license Secret as it is. */
  licenseKey?: string;
  /**
   * The license annotation of the pod template (LICENSE_HASH): the key's SHA-256, stamped with the time it was
   * stored when it must roll the pods; kept as it is when the key is removed (the running leader notices).
   */
  licenseStamp?: string;
  catalogs: { readonly features: string; readonly providers: string };
}): InstallObject[] {
  const { shape } = input;
  // Cluster-wide RBAC and the kube-system Role are named after the namespace outside `mon`, so two
  // installations (one per namespace) never overwrite each other's grants.
  const renamed = (name: string) => (shape.namespace === "mon" ? name : name.replace(/^mon/, `mon-${shape.namespace}`));
  const moved = (o: Record<string, any>): InstallObject => {
    const copy = structuredClone(o) as InstallObject;
    if (copy.kind === "Namespace") copy.metadata.name = shape.namespace;
    else if (copy.metadata?.namespace === "mon") copy.metadata.namespace = shape.namespace;
    else if (/^(Cluster)?Role(Binding)?$/.test(copy.kind)) copy.metadata.name = renamed(copy.metadata.name);
    if (copy.roleRef && (copy.kind === "ClusterRoleBinding" || copy.metadata.namespace === "kube-system"))
      copy.roleRef.name = renamed(copy.roleRef.name);
    for (const s of copy.subjects ?? []) if (s.kind === "ServiceAccount") s.namespace = shape.namespace;
    return copy;
  };
  const objects = [
    ...BASE_MANIFESTS.filter(
      (o) =>
        (shape.overlay || o.kind !== "CustomResourceDefinition") &&
        // Listing Secrets cluster-wide has its own ClusterRole (the kustomize components compose by it).
        (shape.watchSecrets || o.metadata?.name !== SECRETS_ROLE),
    ),
    ...(shape.ha ? COMPONENTS.ha.resources : []),
    ...(shape.networkPolicy ? COMPONENTS["network-policy"].resources : []),
  ].map(moved);
  const patches = [
    ...(shape.ha ? COMPONENTS.ha.patches : []),
    ...(shape.apiServer ? COMPONENTS["host-network"].patches : []),
  ];
  for (const o of objects) {
    for (const patch of patches) if (patch.kind === o.kind) mergeByName(o, targetless(patch));
    if (o.kind === "ClusterRole" && o.metadata.name === renamed("mon"))
      o.rules = clusterRules({ mode: shape.rbacMode, watchSecrets: shape.watchSecrets });
    if (o.kind === "Role" && o.metadata.name === "mon")
      o.rules = namespaceRules({ leaseName: "mon-leader", instanceSecret: shape.watchSecrets, overlay: shape.overlay });
    if (o.kind === "Deployment") shapeDeployment(o, input);
    if (o.kind === "NetworkPolicy" && shape.egressPorts.length)
      o.spec.egress.push({ ports: shape.egressPorts.map((port) => ({ port, protocol: "TCP" })) });
  }
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
  const labels = { "app.kubernetes.io/name": "mon", "app.kubernetes.io/version": shape.version };
  objects.push({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: CONFIG_SECRET, namespace: shape.namespace, labels },
    type: "Opaque",
    data: Object.fromEntries(
      [["config.yaml", input.config.text] as const, ...Object.entries(input.config.credentials).sort()].map(
        ([k, v]) => [k, b64(v)],
      ),
    ),
  });
  if (input.licenseKey !== undefined)
    objects.push({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: LICENSE_SECRET, namespace: shape.namespace, labels },
      type: "Opaque",
      data: { key: b64(input.licenseKey) },
    });
  objects.push({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: CATALOG_CONFIGMAP, namespace: shape.namespace, labels },
    data: { "feature-catalog.tsv": input.catalogs.features, "provider-catalog.tsv": input.catalogs.providers },
  });
  return objects;
}

/** SHA-256 (hex) of the stored configuration: config.yaml and every credential, in key order. */
export function configHash(config: StoredConfig): string {
  const hash = createHash("sha256").update(config.text);
  for (const [k, v] of Object.entries(config.credentials).sort()) hash.update(`\0${k}\0${v}`);
  return hash.digest("hex");
}

/**
 * Merges a kustomize strategic-merge patch as the components write them: objects key by key, lists of named
 * items (containers, env, volumes, volumeMounts) item by item by `name`, other values replaced.
 */
function mergeByName(target: Record<string, any>, patch: Record<string, any>): void {
  for (const [key, value] of Object.entries(patch)) {
    const current = target[key];
    if (
      Array.isArray(value) &&
      Array.isArray(current) &&
      value.every((v) => v && typeof v === "object" && "name" in v)
    ) {
      for (const item of value) {
        const found = current.find((c: { name?: string }) => c?.name === item.name);
        if (found) mergeByName(found, item);
        else current.push(structuredClone(item));
      }
    } else if (value && typeof value === "object" && !Array.isArray(value) && current && typeof current === "object")
      mergeByName(current, value);
    else target[key] = structuredClone(value);
  }
}

/** `host:port` from the in-cluster variables' values (an IPv6 host in brackets): what `--api-server` takes. */
export function joinApiServer(host: string, port: string): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/**
 * `host:port` of `--api-server` as the in-cluster variables take them (an IPv6 host in brackets or bare). Throws
 * naming the flag when it is not an address with a port.
 */
export function splitApiServer(text: string): { host: string; port: string } {
  const m = /^\[?([0-9A-Za-z.:-]+?)\]?:(\d{1,5})$/.exec(text.trim());
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535)
    throw new Error(
      `--api-server must be host:port (the API server's address as the nodes reach it, 127.0.0.1:6443 on a control-plane node), not ${text}`,
    );
  return { host: m[1]!, port: m[2]! };
}

/**
 * A component's patch without what names its target (apiVersion, kind, the name and namespace in its metadata;
 * its labels and annotations stay): the patch is written for the namespace `mon`, and merging its names would
 * move the object back there from the installation's namespace.
 */
function targetless(patch: Record<string, any>): Record<string, any> {
  const { apiVersion: _v, kind: _k, metadata, ...rest } = patch;
  const { name: _n, namespace: _ns, ...meta } = metadata ?? {};
  return Object.keys(meta).length ? { ...rest, metadata: meta } : rest;
}

/** SHA-256 (hex) of a license key. */
export function licenseHash(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

// --- internal ---

function shapeDeployment(deployment: InstallObject, input: Parameters<typeof installObjects>[0]): void {
  const { shape } = input;
  // The components' patches are merged already (installObjects); what they leave to the installer's values:
  if (!shape.ha) delete deployment.spec.template.spec.affinity;
  if (shape.apiServer) {
    const { host, port } = splitApiServer(shape.apiServer);
    for (const e of deployment.spec.template.spec.containers[0].env as { name: string; value?: string }[]) {
      if (e.name === "KUBERNETES_SERVICE_HOST") e.value = host;
      if (e.name === "KUBERNETES_SERVICE_PORT") e.value = port;
    }
  }
  deployment.spec.replicas = shape.replicas;
  const template = deployment.spec.template;
  const annotations: Record<string, string> = { [CONFIG_HASH]: configHash(input.config) };
  if (input.licenseStamp) annotations[LICENSE_HASH] = input.licenseStamp;
  template.metadata.annotations = { ...(template.metadata.annotations ?? {}), ...annotations };
  const container = template.spec.containers[0];
  container.image = shape.image;
  const env = (container.env as { name: string; value?: string }[]).filter(
    (e) => e.name !== "MON_CRD_ENABLED" && e.name !== "MON_WATCH_SECRETS",
  );
  env.push({ name: "MON_CRD_ENABLED", value: String(shape.overlay) });
  if (!shape.watchSecrets) env.push({ name: "MON_WATCH_SECRETS", value: "false" });
  container.env = env;
}
