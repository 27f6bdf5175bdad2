import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { KubeError } from "./errors.ts";

/** Where a pod's ServiceAccount is mounted (token, ca.crt), below an optional root (tests). */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** How long a read token is used before the file is read again, ms: the kubelet rotates projected tokens. */
const TOKEN_REREAD_MS = 60_000;

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
}

/**
 * The in-cluster ServiceAccount as client-go's `InClusterConfig` reads it: the API server at
 * `KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT`, its CA from `ca.crt`, the bearer token from `token`, read
 * again every minute (the kubelet rotates a projected token well before it expires). No kubeconfig library is
 * loaded for it (issue 42: an idle mon in a cluster stays small). `root` prefixes SERVICE_ACCOUNT_DIR (tests).
 * Throws KubeError "kubeconfig" naming the file that is missing.
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
  let token: { value: string; readAt: number; mtimeMs: number } | undefined;
  const read = () => {
    const now = Date.now();
    if (token && now - token.readAt < TOKEN_REREAD_MS) return token.value;
    const mtimeMs = statSync(tokenFile).mtimeMs;
    const value = token && token.mtimeMs === mtimeMs ? token.value : readFileSync(tokenFile, "utf8").trim();
    token = { value, readAt: now, mtimeMs };
    return value;
  };
  return {
    server,
    source: "in-cluster",
    tls: { ca: readFileSync(caFile, "utf8"), insecureSkipVerify: false },
    async headers() {
      return { authorization: `Bearer ${read()}` };
    },
  };
}
