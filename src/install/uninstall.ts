import { clusterUuid } from "../kube/cluster-uuid.ts";
import type { KubeConnection } from "../kube/connection.ts";
import { deleteObject, describeObject, type ObjectName, readObject } from "./apply.ts";
import { foreignOwner } from "./owner.ts";
import { installObjects, LICENSE_SECRET } from "./plan.ts";
import { createLicenseClient } from "../license/client.ts";
import { INSTANCE_SECRET, instanceSecretStore } from "../license/instance-secret.ts";
import { trustedKeys } from "../license/keys.ts";
import type { HttpClient } from "../outbound/client.ts";
import { endpointsFrom } from "../outbound/endpoints.ts";
import { VERSION } from "../version.ts";
import { readInstalled, releaseCatalogs } from "./install.ts";

/** What `mon install --uninstall` did to the license binding. */
export type BindingRelease =
  | { readonly result: "released" }
  | { readonly result: "not_bound" }
  /** The license server could not be reached: the license stays bound to this cluster. */
  | { readonly result: "failed"; readonly detail: string; readonly server: string };

/** What one `mon install --uninstall` removed, kept and released (docs/install.md "Uninstalling"). */
export interface UninstallReport {
  /** `Kind namespace/name` of each object deleted, in order (with `dryRun`: that would be deleted). */
  readonly deleted: readonly string[];
  /** Objects left in place, each with why (without `--purge`). */
  readonly kept: readonly { readonly object: string; readonly why: string }[];
  /** Absent with `dryRun`. */
  readonly license?: BindingRelease;
}

/**
 * `mon install --uninstall [--purge]` (docs/install.md "Uninstalling"): removes what `mon install` created in
 * `namespace` — the Deployment first, so no replica renews the license afterwards, then the license binding
 * is released at {license_url} (MON_LICENSE_URL of this shell, else the Deployment's, else the vendor's), then
 * every other object of the installation in reverse order of creation. Without `purge` the namespace, the
 * license key Secret, the instance Secret (its binding cleared once released), the Pro state volume and the
 * MonConfig CRD (it holds the overlays) stay, so a later `mon install` picks them up; with `purge` they go too.
 * Objects another tool manages (a Helm release's, issue 52) are kept, each with the command that owns it.
 * Throws Error when no installation is found, when the Deployment is another tool's (nothing is removed), or
 * naming the object the API server refused.
 */
export async function runUninstall(
  connection: KubeConnection,
  options: {
    namespace: string;
    purge: boolean;
    dryRun?: boolean;
    http: HttpClient;
    /** This shell's environment (MON_LICENSE_URL). */
    env: Readonly<Record<string, string | undefined>>;
  },
): Promise<UninstallReport> {
  const { namespace, purge } = options;
  const installed = await readInstalled(connection, namespace);
  const objects = installObjects({ shape: installed.shape, config: installed.config, catalogs: releaseCatalogs() });
  const present: ObjectName[] = [];
  const foreign: { object: string; why: string }[] = [];
  for (const o of objects) {
    const found = await readObject(connection, o);
    const owner = foreignOwner(found);
    // Another tool's objects (a Helm release's) are named and left alone, with the command that owns them.
    if (owner) foreign.push({ object: describeObject(o), why: `managed by ${owner.owner}: ${owner.command}` });
    else if (found) present.push(o);
  }
  const deploymentOwner = foreign.find((f) => f.object === `Deployment ${namespace}/mon`);
  if (deploymentOwner)
    throw new Error(
      `namespace ${namespace} holds an installation mon install did not make (Deployment ${namespace}/mon ${deploymentOwner.why}); nothing removed`,
    );
  // A binding left by an earlier --uninstall that could not reach the license server is still something to do.
  const bound = Boolean((await instanceSecretStore(connection, namespace).read()).state?.instanceKey);
  if (
    !installed.exists &&
    !bound &&
    present.every((o) => o.kind === "Namespace" || o.kind === "CustomResourceDefinition")
  )
    throw new Error(`no mon installation in namespace ${namespace} (no Deployment ${namespace}/mon); nothing removed`);

  const named = (kind: string, name: string): ObjectName => ({ kind, metadata: { name, namespace } });
  const extra: { object: ObjectName; why: string }[] = [
    { object: named("Secret", LICENSE_SECRET), why: "the license key" },
    { object: named("Secret", INSTANCE_SECRET), why: "the license binding and clock high-water mark" },
  ];
  const keeps = (o: ObjectName): string | undefined =>
    o.kind === "Namespace"
      ? "the namespace (it holds what is kept)"
      : o.kind === "PersistentVolumeClaim"
        ? "the Pro state volume (outbox, incidents)"
        : o.kind === "CustomResourceDefinition"
          ? "the MonConfig CRD (deleting it deletes every overlay)"
          : undefined;
  const kept: { object: string; why: string }[] = [...foreign];
  const removable: ObjectName[] = [];
  for (const o of [...present].reverse()) {
    const why = purge ? undefined : keeps(o);
    if (why) kept.push({ object: describeObject(o), why });
    else removable.push(o);
  }
  for (const { object, why } of extra) {
    if (!(await readObject(connection, object))) continue;
    if (purge) removable.push(object);
    else kept.push({ object: describeObject(object), why });
  }
  // The Deployment goes first: a replica still running could renew the binding after it was released. The
  // namespace goes last, once what is in it is gone.
  const order = [
    ...removable.filter((o) => o.kind === "Deployment"),
    ...removable.filter((o) => o.kind !== "Deployment" && o.kind !== "Namespace"),
    ...removable.filter((o) => o.kind === "Namespace"),
  ];
  if (options.dryRun) return { deleted: order.map(describeObject), kept };

  const deleted: string[] = [];
  const remove = async (o: ObjectName) => {
    if (await deleteObject(connection, o)) deleted.push(describeObject(o));
  };
  const licenseUrl = licenseUrlOf(options.env, installed);
  for (const o of order.filter((o) => o.kind === "Deployment")) await remove(o);
  // Read before the instance Secret goes (with purge), released before anything else is removed.
  const license = await releaseBinding(connection, namespace, licenseUrl, options.http, !purge);
  for (const o of order.filter((o) => o.kind !== "Deployment")) {
    // An unreleased binding is not forgotten: the instance Secret (and its namespace) wait for another try.
    if (license.result === "failed" && (o.kind === "Namespace" || o.metadata.name === INSTANCE_SECRET)) {
      kept.push({ object: describeObject(o), why: `the license binding is not released yet (${license.server})` });
      continue;
    }
    await remove(o);
  }
  return { deleted, kept, license };
}

// --- internal ---

/** MON_LICENSE_URL of this shell, else of the installed Deployment, else the vendor's {license_url}. */
function licenseUrlOf(
  env: Readonly<Record<string, string | undefined>>,
  installed: Awaited<ReturnType<typeof readInstalled>>,
): string {
  return endpointsFrom({ MON_LICENSE_URL: env.MON_LICENSE_URL || installed.env.MON_LICENSE_URL }).license;
}

/**
 * Releases the cluster binding kept in the instance Secret; with `keep`, the Secret then keeps only what a
 * reinstall needs (the key's hash and the clock high-water mark), so the kept key activates afresh.
 */
async function releaseBinding(
  connection: KubeConnection,
  namespace: string,
  url: string,
  http: HttpClient,
  keep: boolean,
): Promise<BindingRelease> {
  const store = instanceSecretStore(connection, namespace);
  const record = await store.read();
  const instanceKey = record.state?.instanceKey;
  if (!instanceKey) return { result: "not_bound" };
  const client = createLicenseClient({
    url,
    http,
    keys: trustedKeys(),
    clusterUuid: (await clusterUuid(connection)).uuid,
    monVersion: VERSION,
  });
  const outcome = await client.release(instanceKey);
  if (outcome.kind === "unreachable") return { result: "failed", detail: outcome.detail, server: url };
  if (keep)
    await store.write({
      state: {
        name: "community",
        highWater: record.state?.highWater ?? 0,
        notified: [],
        reason: "the binding was released by mon install --uninstall",
      },
      ...(record.keySha256 ? { keySha256: record.keySha256 } : {}),
    });
  return { result: "released" };
}
