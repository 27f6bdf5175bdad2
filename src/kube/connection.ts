import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { createTlsFetch, type TlsFetch } from "../runtime/tls-fetch.ts";
import { classifyFetchError, classifyStatus, KubeError } from "./errors.ts";

/** A connection to one API server: its URL and a request function carrying the kubeconfig's TLS and auth. */
export interface KubeConnection {
  readonly server: string;
  /** Where the credentials came from: `kubeconfig <path>`, `in-cluster`, or `default kubeconfig`. */
  readonly source: string;
  /** Sends one request to `path` (with query); throws KubeError for network/TLS failures, never for HTTP statuses. */
  request(path: string, init?: RequestInit): Promise<Response>;
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
  } = {},
): Promise<KubeConnection> {
  const env = options.env ?? process.env;
  const kc = new KubeConfig();
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
  let base: HttpsOptions;
  try {
    base = await httpsOptions(kc);
  } catch (error) {
    throw new KubeError("kubeconfig", `cannot use ${source} (server ${server}): ${(error as Error).message}`);
  }
  const tlsFetch: TlsFetch = createTlsFetch({
    ca: pem(base.ca),
    cert: pem(base.cert),
    key: pem(base.key),
    insecureSkipVerify: base.rejectUnauthorized === false,
    serverName: cluster.tlsServerName,
  });

  const request = async (target: string, init: RequestInit = {}): Promise<Response> => {
    const auth = await httpsOptions(kc);
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(auth.headers ?? {}))
      if (value !== undefined) headers.set(name, String(value));
    if (auth.auth && !headers.has("authorization")) headers.set("authorization", `Basic ${btoa(String(auth.auth))}`);
    if (!headers.has("accept")) headers.set("accept", "application/json");
    headers.set("user-agent", "mon");
    try {
      return await tlsFetch(`${server}${target}`, { ...init, headers });
    } catch (error) {
      throw classifyFetchError(error, server);
    }
  };

  return {
    server,
    source,
    request,
    async authorization() {
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
