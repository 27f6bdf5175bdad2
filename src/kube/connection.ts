import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { createTlsFetch, type StreamRequestInit, type TlsFetch } from "../runtime/tls-fetch.ts";
import { classifyFetchError, classifyStatus, KubeError } from "./errors.ts";
import { createExecCredentialSource, EXEC_TIMEOUT_MS, type ExecCredentialSource } from "./exec-credential.ts";

/** A connection to one API server: its URL and a request function carrying the kubeconfig's TLS and auth. */
export interface KubeConnection {
  readonly server: string;
  /** Where the credentials came from: `kubeconfig <path>`, `in-cluster`, or `default kubeconfig`. */
  readonly source: string;
  /**
   * Sends one request to `path` (with query); throws KubeError for network/TLS failures, never for HTTP statuses.
   * `init.stream` marks a watch: no idle timeout of the runtime's own (runtime/tls-fetch.ts).
   */
  request(path: string, init?: StreamRequestInit): Promise<Response>;
  /** GET `path` and parse JSON; throws KubeError on any non-2xx answer. */
  getJson<T>(path: string, signal?: AbortSignal): Promise<T>;
  /** The Authorization header mon sends (the ServiceAccount token), for kubelet calls. */
  authorization(): Promise<string | undefined>;
  /** A fetch trusting the cluster CA (kubelet serving certificates), or verifying nothing when `insecureSkipVerify`. */
  kubeletFetch(insecureSkipVerify: boolean): TlsFetch;
}

/**
 * Connects as `mon run` does (issue "main job" / spec 5): `kubeconfigPath` (flag or KUBECONFIG) first, else the
 * in-cluster ServiceAccount (token and ca.crt, when KUBERNETES_SERVICE_HOST is set), else ~/.kube/config.
 * @kubernetes/client-node reads the kubeconfig (CA, client certificate and key, token, exec and auth
 * providers, insecure-skip-tls-verify); the TLS material goes to the runtime's fetch through
 * runtime/tls-fetch.ts, because client-node's own undici transport loses it under Bun.
 * Throws KubeError "tls" / "network" with a clear message when the kubeconfig cannot be used.
 */
export async function connectKube(
  options: {
    kubeconfigPath?: string;
    kubeconfigText?: string;
    env?: Readonly<Record<string, string | undefined>>;
    /** Where a kubeconfig exec plugin's failures and timeouts are said (default: standard error). */
    log?: (line: string) => void;
  } = {},
): Promise<KubeConnection> {
  const env = options.env ?? process.env;
  let kc = new KubeConfig();
  let source: string;
  const path = options.kubeconfigPath ?? env.KUBECONFIG;
  try {
    if (options.kubeconfigText) {
      kc.loadFromString(options.kubeconfigText);
      source = "built-in simulator";
    } else if (path) {
      source = `kubeconfig ${path}`;
      kc.loadFromFile(path);
    } else if (env.KUBERNETES_SERVICE_HOST) {
      source = "in-cluster";
      // client-node reads these lazily and fails with a raw ENOENT deep inside; say what is missing up front.
      for (const file of [IN_CLUSTER_TOKEN, IN_CLUSTER_CA])
        if (!existsSync(file))
          throw new KubeError(
            "kubeconfig",
            `KUBERNETES_SERVICE_HOST is set but ${file} does not exist: mount the ServiceAccount token (automountServiceAccountToken: true), or pass --kubeconfig outside a cluster`,
          );
      kc.loadFromCluster();
    } else {
      source = "default kubeconfig";
      const home = join(env.HOME ?? homedir(), ".kube", "config");
      if (!existsSync(home))
        throw new KubeError(
          "kubeconfig",
          `no kubeconfig found: pass --kubeconfig FILE or set KUBECONFIG (${home} does not exist), or run mon in a cluster with its ServiceAccount`,
        );
      kc.loadFromDefault();
    }
  } catch (error) {
    if (error instanceof KubeError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new KubeError(
      "kubeconfig",
      `cannot load ${path ? `kubeconfig ${path}` : "the kubeconfig"}: ${code === "ENOENT" ? "no such file" : (error as Error).message}`,
    );
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new KubeError("kubeconfig", `no current cluster in ${source}: set current-context`);
  const server = cluster.server.replace(/\/+$/, "");
  // An exec credential plugin is run by mon itself, not by client-node: with a timeout, killed with mon, backed
  // off when it fails or answers an expired credential, and told KUBERNETES_EXEC_INFO (issue 30).
  let exec: ExecCredentialSource | undefined;
  const user = kc.getCurrentUser();
  if (user?.exec) {
    const timeout = env.MON_EXEC_TIMEOUT?.trim();
    const seconds = timeout ? Number(timeout) : EXEC_TIMEOUT_MS / 1000;
    if (!Number.isFinite(seconds) || seconds <= 0)
      throw new KubeError("kubeconfig", `MON_EXEC_TIMEOUT: "${timeout}" is not a positive number of seconds`);
    exec = createExecCredentialSource(user.exec, {
      cluster: {
        server,
        ...(cluster.caData ? { certificateAuthorityData: cluster.caData } : {}),
        ...(cluster.tlsServerName ? { tlsServerName: cluster.tlsServerName } : {}),
        ...(cluster.skipTLSVerify ? { insecureSkipTlsVerify: true } : {}),
      },
      timeoutMs: seconds * 1000,
      env,
      ...(options.log ? { log: options.log } : {}),
    });
    const stripped = new KubeConfig();
    stripped.loadFromOptions({
      clusters: kc.clusters,
      contexts: kc.contexts,
      currentContext: kc.currentContext,
      users: kc.users.map((u) => (u.name === user.name ? { ...u, exec: undefined } : u)),
    });
    kc = stripped;
  }
  let base: HttpsOptions;
  try {
    base = await httpsOptions(kc);
  } catch (error) {
    throw new KubeError("kubeconfig", `cannot use ${source} (server ${server}): ${(error as Error).message}`);
  }
  const tlsWith = (cert: string | undefined, key: string | undefined): TlsFetch =>
    createTlsFetch({
      ca: pem(base.ca),
      cert,
      key,
      insecureSkipVerify: base.rejectUnauthorized === false,
      serverName: cluster.tlsServerName,
    });
  const tlsFetch: TlsFetch = tlsWith(pem(base.cert), pem(base.key));
  // A client certificate from the exec plugin: one TLS client per certificate, made again when it rotates.
  let execTls: { cert: string; fetch: TlsFetch } | undefined;

  const request = async (target: string, init: StreamRequestInit = {}): Promise<Response> => {
    const auth = await httpsOptions(kc);
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(auth.headers ?? {}))
      if (value !== undefined) headers.set(name, String(value));
    let fetcher = tlsFetch;
    if (exec) {
      const credential = await exec.get();
      if (credential.token) headers.set("authorization", `Bearer ${credential.token}`);
      if (credential.clientCertificateData && credential.clientKeyData) {
        if (execTls?.cert !== credential.clientCertificateData)
          execTls = {
            cert: credential.clientCertificateData,
            fetch: tlsWith(credential.clientCertificateData, credential.clientKeyData),
          };
        fetcher = execTls.fetch;
      }
    }
    if (auth.auth && !headers.has("authorization")) headers.set("authorization", `Basic ${btoa(String(auth.auth))}`);
    if (!headers.has("accept")) headers.set("accept", "application/json");
    headers.set("user-agent", "mon");
    try {
      return await fetcher(`${server}${target}`, { ...init, headers });
    } catch (error) {
      throw classifyFetchError(error, server);
    }
  };

  return {
    server,
    source,
    request,
    async authorization() {
      if (exec) {
        const token = (await exec.get()).token;
        if (token) return `Bearer ${token}`;
      }
      const auth = await httpsOptions(kc);
      const header = auth.headers?.Authorization ?? auth.headers?.authorization;
      return header === undefined ? undefined : String(header);
    },
    kubeletFetch: (insecureSkipVerify) => createTlsFetch({ ca: pem(base.ca), insecureSkipVerify }),
    async getJson<T>(target: string, signal?: AbortSignal): Promise<T> {
      const response = await request(target, { signal });
      const text = await response.text();
      if (!response.ok)
        throw classifyStatus(response.status, text, `GET ${target}`, response.headers.get("retry-after"));
      return JSON.parse(text) as T;
    },
  };
}

// --- internal ---

interface HttpsOptions {
  ca?: unknown;
  cert?: unknown;
  key?: unknown;
  rejectUnauthorized?: boolean;
  headers?: Record<string, unknown>;
  auth?: unknown;
}

const IN_CLUSTER_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";
const IN_CLUSTER_CA = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";

async function httpsOptions(kc: KubeConfig): Promise<HttpsOptions> {
  const opts: HttpsOptions = {};
  await kc.applyToHTTPSOptions(opts as never);
  return opts;
}

function pem(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return Buffer.isBuffer(value) ? value.toString("utf8") : String(value);
}
