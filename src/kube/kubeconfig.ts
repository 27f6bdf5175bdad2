import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";
import { KubeError } from "./errors.ts";
import { createExecCredentialSource, EXEC_TIMEOUT_MS, type ExecCredentialSource } from "./exec-credential.ts";
import type { Credentials } from "./in-cluster.ts";

/** Credentials from a kubeconfig, and the exec plugin mon runs itself when its user has one. */
export interface KubeconfigCredentials extends Credentials {
  readonly exec?: ExecCredentialSource;
}

/**
 * Reads a kubeconfig — `text` (the built-in simulator's), the file at `path`, or ~/.kube/config — with
 * @kubernetes/client-node (CA, client certificate and key, token, auth providers, insecure-skip-tls-verify),
 * imported only here and only then: a mon in a cluster reads its ServiceAccount without it (issue 42). An exec
 * credential plugin is run by mon itself (kube/exec-credential.ts): with a timeout, killed with mon, backed off
 * when it fails or answers an expired credential, and told KUBERNETES_EXEC_INFO (issue 30).
 * Throws KubeError "kubeconfig" with a clear message when the kubeconfig cannot be used.
 */
export async function kubeconfigCredentials(options: {
  text?: string;
  path?: string;
  env: Readonly<Record<string, string | undefined>>;
  log?: (line: string) => void;
}): Promise<KubeconfigCredentials> {
  const { KubeConfig } = await import("@kubernetes/client-node");
  const { env, path } = options;
  let kc = new KubeConfig();
  let source: string;
  try {
    if (options.text) {
      kc.loadFromString(options.text);
      source = "built-in simulator";
    } else if (path) {
      source = `kubeconfig ${path}`;
      kc.loadFromFile(path);
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
  const config = kc;
  const ca = pem(base.ca);
  const cert = pem(base.cert);
  const key = pem(base.key);
  return {
    server,
    source,
    tls: {
      ...(ca ? { ca } : {}),
      ...(cert ? { cert } : {}),
      ...(key ? { key } : {}),
      insecureSkipVerify: base.rejectUnauthorized === false,
      ...(cluster.tlsServerName ? { serverName: cluster.tlsServerName } : {}),
    },
    async headers() {
      const auth = await httpsOptions(config);
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(auth.headers ?? {}))
        if (value !== undefined) out[name.toLowerCase()] = String(value);
      if (auth.auth && !out.authorization) out.authorization = `Basic ${btoa(String(auth.auth))}`;
      return out;
    },
    ...(exec ? { exec } : {}),
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

async function httpsOptions(kc: KubeConfig): Promise<HttpsOptions> {
  const opts: HttpsOptions = {};
  await kc.applyToHTTPSOptions(opts as never);
  return opts;
}

function pem(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return Buffer.isBuffer(value) ? value.toString("utf8") : String(value);
}
