import { randomBytes } from "node:crypto";
import { renderKubeconfig } from "./kubeconfig.ts";
import { createSimPki, type SimPki } from "./pki.ts";
import { findType, findTypeByKind, type ResourceType } from "./resources.ts";
import { startSimServer, type SimServer } from "./server.ts";
import { ObjectStore, type KubeObject } from "./store.ts";

/** A running simulator: the API server, its store, and the credentials a client needs. */
export interface Simulator {
  readonly server: SimServer;
  readonly store: ObjectStore;
  readonly pki: SimPki;
  readonly token: string;
  /** Kubeconfig text with the CA and the bearer token. */
  kubeconfig(options?: { clientCert?: boolean; token?: boolean }): string;
  /** Creates or replaces an object from a manifest (`apiVersion`, `kind`, `metadata`); status is kept as given. */
  apply(object: KubeObject): KubeObject;
  /** Merge-patches an object's status subresource. */
  patchStatus(apiVersion: string, kind: string, namespace: string | undefined, name: string, status: Record<string, unknown>): KubeObject;
  /** Deletes an object; pods are force-deleted (grace period 0). Missing objects are ignored. */
  remove(apiVersion: string, kind: string, namespace: string | undefined, name: string): void;
  /** Replaces the accepted bearer tokens (token rotation and revocation in tests). */
  setTokens(tokens: readonly string[]): void;
  /** The served resource type for a group, version and plural name; throws when not served. */
  typeOf(group: string, version: string, plural: string): ResourceType;
  stop(): Promise<void>;
}

/**
 * Starts the simulator with its own CA, a random admin token and the namespaces every cluster has
 * (default, kube-system, kube-public, kube-node-lease). `port` 0 picks a free one.
 */
export async function startSimulator(options: { port?: number; bookmarkIntervalMs?: number; now?: () => number } = {}): Promise<Simulator> {
  const now = options.now ?? (() => Date.now());
  const pki = createSimPki();
  const store = new ObjectStore(now);
  const token = randomBytes(24).toString("hex");
  const tokens = [token];
  const server = await startSimServer({ store, pki, tokens, port: options.port, bookmarkIntervalMs: options.bookmarkIntervalMs, now });
  const namespaces = typeOf("v1", "Namespace");
  for (const name of ["default", "kube-system", "kube-public", "kube-node-lease"]) store.create(namespaces, undefined, { metadata: { name } });

  const apply = (object: KubeObject): KubeObject => {
    const type = typeOf(object.apiVersion, object.kind);
    const namespace = type.namespaced ? (object.metadata?.namespace ?? "default") : undefined;
    let current: KubeObject | undefined;
    try {
      current = store.get(type, namespace, object.metadata.name);
    } catch {
      current = undefined;
    }
    let written = current
      ? store.update(type, namespace, object.metadata.name, { ...object, metadata: { ...object.metadata, resourceVersion: undefined } })
      : store.create(type, namespace, object);
    if (type.status && object.status) written = store.update(type, namespace, object.metadata.name, { status: object.status }, "status");
    return written;
  };

  return {
    server,
    store,
    pki,
    token,
    kubeconfig: (opts = {}) =>
      renderKubeconfig({
        server: server.url,
        caCert: pki.caCert,
        token: opts.token === false ? undefined : token,
        ...(opts.clientCert ? { clientCert: pki.clientCert, clientKey: pki.clientKey } : {}),
      }),
    apply,
    patchStatus(apiVersion, kind, namespace, name, status) {
      return store.patch(typeOf(apiVersion, kind), namespace, name, "application/merge-patch+json", { status }, "status");
    },
    remove(apiVersion, kind, namespace, name) {
      try {
        store.delete(typeOf(apiVersion, kind), namespace, name, { gracePeriodSeconds: 0 });
      } catch {
        // already gone: the scenario's intent holds
      }
    },
    setTokens(next) {
      tokens.splice(0, tokens.length, ...next);
    },
    typeOf(group, version, plural) {
      const found = findType(group, version, plural);
      if (!found) throw new Error(`the simulator does not serve ${group}/${version} ${plural}`);
      return found;
    },
    stop: () => server.close(),
  };
}

// --- internal ---

function typeOf(apiVersion: string, kind: string): ResourceType {
  const found = findTypeByKind(apiVersion, kind);
  if (!found) throw new Error(`the simulator does not serve ${apiVersion} ${kind}`);
  return found;
}
