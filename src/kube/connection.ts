import { createTlsFetch, type StreamRequestInit, type TlsFetch } from "../runtime/tls-fetch.ts";
import { classifyFetchError, classifyStatus } from "./errors.ts";
import { inClusterCredentials, type ServiceAccountRef } from "./in-cluster.ts";
import { type KubeconfigCredentials, kubeconfigCredentials } from "./kubeconfig.ts";

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
  /** The ServiceAccount mon acts as (in-cluster only; undefined with a kubeconfig): the owner of what mon creates. */
  serviceAccount(): ServiceAccountRef | undefined;
}

/**
 * Connects as `mon run` does (issue "main job" / spec 5): `kubeconfigPath` (flag or KUBECONFIG) first, else the
 * in-cluster ServiceAccount (token and ca.crt, when KUBERNETES_SERVICE_HOST is set: kube/in-cluster.ts, no
 * kubeconfig library loaded), else ~/.kube/config (kube/kubeconfig.ts, with @kubernetes/client-node). The TLS
 * material goes to the runtime's fetch through runtime/tls-fetch.ts, because client-node's own undici transport
 * loses it under Bun. `serviceAccountRoot` prefixes the ServiceAccount's mount (tests).
 * Throws KubeError "kubeconfig" / "tls" / "network" with a clear message when the credentials cannot be used.
 */
export async function connectKube(
  options: {
    kubeconfigPath?: string;
    kubeconfigText?: string;
    env?: Readonly<Record<string, string | undefined>>;
    /** Where a kubeconfig exec plugin's failures and timeouts are said (default: standard error). */
    log?: (line: string) => void;
    serviceAccountRoot?: string;
  } = {},
): Promise<KubeConnection> {
  const env = options.env ?? process.env;
  const path = options.kubeconfigPath ?? env.KUBECONFIG;
  const credentials: KubeconfigCredentials =
    !options.kubeconfigText && !path && env.KUBERNETES_SERVICE_HOST
      ? inClusterCredentials(env, options.serviceAccountRoot)
      : await kubeconfigCredentials({
          ...(options.kubeconfigText ? { text: options.kubeconfigText } : {}),
          ...(path ? { path } : {}),
          env,
          ...(options.log ? { log: options.log } : {}),
        });
  const { server, source, tls, exec } = credentials;
  const tlsWith = (cert: string | undefined, key: string | undefined): TlsFetch =>
    createTlsFetch({ ca: tls.ca, cert, key, insecureSkipVerify: tls.insecureSkipVerify, serverName: tls.serverName });
  const tlsFetch: TlsFetch = tlsWith(tls.cert, tls.key);
  // A client certificate from the exec plugin: one TLS client per certificate, made again when it rotates.
  let execTls: { cert: string; fetch: TlsFetch } | undefined;

  const request = async (target: string, init: StreamRequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(await credentials.headers())) headers.set(name, value);
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
      return (await credentials.headers()).authorization;
    },
    kubeletFetch: (insecureSkipVerify) => createTlsFetch({ ca: tls.ca, insecureSkipVerify }),
    serviceAccount: () => credentials.serviceAccount?.(),
    async getJson<T>(target: string, signal?: AbortSignal): Promise<T> {
      const response = await request(target, { signal });
      const text = await response.text();
      if (!response.ok)
        throw classifyStatus(response.status, text, `GET ${target}`, response.headers.get("retry-after"));
      return JSON.parse(text) as T;
    },
  };
}
