import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { KubeError } from "./errors.ts";

/** Where a pod's ServiceAccount is mounted (token, ca.crt), below an optional root (tests). */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** What a connection needs of its credentials, whatever their source (kubeconfig file or ServiceAccount). */
export interface Credentials {
  readonly server: string;
  readonly source: string;
  /** TLS material (PEM text) for the API server, and how to verify it. */
  readonly tls: {
    readonly ca?: string;
    readonly cert?: string;
    readonly key?: string;
    readonly insecureSkipVerify: boolean;
    readonly serverName?: string;
  };
  /** Headers for one request (Authorization), read again when the source rotates them. */
  headers(): Promise<Record<string, string>>;
  /** The ServiceAccount the credentials act as, when known (in-cluster: from the token's claims). */
  serviceAccount?(): ServiceAccountRef | undefined;
}

/** A ServiceAccount, as a projected token's `kubernetes.io` claim names it. */
export interface ServiceAccountRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/**
 * The ServiceAccount a projected token (a JWT) was issued for, from its unverified `kubernetes.io` claim, or
 * undefined for a token of another shape (a legacy Secret token names it in other claims; an opaque token not at all).
 */
export function tokenServiceAccount(token: string): ServiceAccountRef | undefined {
  const payload = token.split(".")[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as {
      "kubernetes.io"?: { namespace?: unknown; serviceaccount?: { name?: unknown; uid?: unknown } };
    };
    const k = claims["kubernetes.io"];
    const { namespace } = k ?? {};
    const { name, uid } = k?.serviceaccount ?? {};
    return typeof namespace === "string" && typeof name === "string" && typeof uid === "string"
      ? { namespace, name, uid }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The in-cluster ServiceAccount as client-go's `InClusterConfig` reads it: the API server at
 * `KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT`, its CA from `ca.crt`, the bearer token from `token`. The
 * token is read again as soon as the file changes (one stat per request: the kubelet rotates a projected token by
 * swapping the volume's `..data` link, and a rotated-out token may be revoked at once, issue 51), where client-go
 * waits up to a minute. No kubeconfig library is loaded for it (issue 42: an idle mon in a cluster stays small).
 * `root` prefixes SERVICE_ACCOUNT_DIR (tests). Throws KubeError "kubeconfig" naming the file that is missing.
 */
export function inClusterCredentials(env: Readonly<Record<string, string | undefined>>, root = ""): Credentials {
  const dir = join(root, SERVICE_ACCOUNT_DIR);
  const tokenFile = join(dir, "token");
  const caFile = join(dir, "ca.crt");
  for (const file of [tokenFile, caFile])
    if (!existsSync(file))
      throw new KubeError(
        "kubeconfig",
        `KUBERNETES_SERVICE_HOST is set but ${file} does not exist: mount the ServiceAccount token (automountServiceAccountToken: true), or pass --kubeconfig outside a cluster`,
      );
  const host = env.KUBERNETES_SERVICE_HOST ?? "";
  const port = env.KUBERNETES_SERVICE_PORT || "443";
  const server = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
  // The token and the ServiceAccount it names, parsed once per version of the file (the Lease is written every 2 s).
  let token: { value: string; version: string; serviceAccount: ServiceAccountRef | undefined } | undefined;
  const read = () => {
    let version = "";
    try {
      const st = statSync(tokenFile);
      version = `${st.ino}:${st.mtimeMs}:${st.size}`;
    } catch {
      // Between the kubelet's unlink and link of a rotation: the token read last is still the best there is.
      if (token) return token.value;
    }
    if (token?.version !== version) {
      const value = readFileSync(tokenFile, "utf8").trim();
      token = { value, version, serviceAccount: tokenServiceAccount(value) };
    }
    return token.value;
  };
  return {
    server,
    source: "in-cluster",
    tls: { ca: readFileSync(caFile, "utf8"), insecureSkipVerify: false },
    async headers() {
      return { authorization: `Bearer ${read()}` };
    },
    serviceAccount: () => {
      read();
      return token?.serviceAccount;
    },
  };
}
