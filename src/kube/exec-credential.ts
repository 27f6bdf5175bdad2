import { type ChildProcess, spawn } from "node:child_process";
import { KubeError } from "./errors.ts";

/** A kubeconfig user's `exec` stanza (client.authentication.k8s.io), as the kubeconfig spells it. */
export interface ExecConfig {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: readonly { readonly name: string; readonly value: string }[] | null;
  readonly apiVersion?: string;
  readonly provideClusterInfo?: boolean;
}

/** What a plugin answered: a bearer token and/or a client certificate (PEM), valid until `expiresAt` (epoch ms). */
export interface ExecCredential {
  readonly token?: string;
  readonly clientCertificateData?: string;
  readonly clientKeyData?: string;
  readonly expiresAt?: number;
}

/** The cluster a plugin is told about when the kubeconfig sets `provideClusterInfo` (KUBERNETES_EXEC_INFO). */
export interface ExecClusterInfo {
  readonly server: string;
  readonly certificateAuthorityData?: string;
  readonly tlsServerName?: string;
  readonly insecureSkipTlsVerify?: boolean;
}

/** Credentials from a kubeconfig exec plugin, run once at a time, cached until they expire. */
export interface ExecCredentialSource {
  /** The current credential, running the plugin when there is none or it expired; throws KubeError `unauthorized`. */
  get(): Promise<ExecCredential>;
  /** Kills a plugin still running (mon stops). */
  close(): void;
}

/** How long a plugin may take before it is killed, ms. */
export const EXEC_TIMEOUT_MS = 30_000;
/** Backoff after a plugin failed or answered an expired credential: 1 s doubling to 5 min. */
const BACKOFF_MS = { first: 1_000, max: 300_000 };

/**
 * Runs a kubeconfig exec credential plugin as client-go does (issue 30): with `KUBERNETES_EXEC_INFO` set
 * (`spec.interactive` false; `spec.cluster` when `provideClusterInfo`), the kubeconfig's `env` added, stdin
 * closed. A plugin that has not answered within `timeoutMs` (default 30 s) is killed and said in the log with
 * its command; so is one that fails or prints no credential. A failure, or a credential already expired when it
 * arrives, is not asked for again at every request: the plugin runs again after a backoff (1 s doubling to
 * 5 min), and meanwhile requests fail with the same error (or use the expired credential, which the API server
 * judges). A plugin still running when mon exits is killed with it.
 */
export function createExecCredentialSource(
  exec: ExecConfig,
  options: {
    cluster?: ExecClusterInfo;
    timeoutMs?: number;
    now?: () => number;
    log?: (line: string) => void;
    env?: Readonly<Record<string, string | undefined>>;
  } = {},
): ExecCredentialSource {
  const now = options.now ?? Date.now;
  const log = options.log ?? ((line: string) => console.error(line));
  const timeoutMs = options.timeoutMs ?? EXEC_TIMEOUT_MS;
  const name = exec.command.split("/").at(-1) ?? exec.command;
  let cached: ExecCredential | undefined;
  let failed: { error: KubeError; until: number } | undefined;
  let expiredUntil = 0;
  let backoff = 0;
  let running: Promise<ExecCredential> | undefined;
  const children = new Set<ChildProcess>();
  const killAll = () => {
    for (const child of children) child.kill("SIGKILL");
  };
  process.once("exit", killAll);

  const nextBackoff = () => {
    backoff = backoff === 0 ? BACKOFF_MS.first : Math.min(BACKOFF_MS.max, backoff * 2);
    return backoff;
  };

  const run = () =>
    new Promise<ExecCredential>((resolve, reject) => {
      const apiVersion = exec.apiVersion ?? "client.authentication.k8s.io/v1";
      const info = {
        apiVersion,
        kind: "ExecCredential",
        spec: {
          interactive: false,
          ...(exec.provideClusterInfo && options.cluster
            ? {
                cluster: {
                  server: options.cluster.server,
                  ...(options.cluster.certificateAuthorityData
                    ? { "certificate-authority-data": options.cluster.certificateAuthorityData }
                    : {}),
                  ...(options.cluster.tlsServerName ? { "tls-server-name": options.cluster.tlsServerName } : {}),
                  ...(options.cluster.insecureSkipTlsVerify ? { "insecure-skip-tls-verify": true } : {}),
                },
              }
            : {}),
        },
      };
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(options.env ?? process.env)) if (v !== undefined) env[k] = v;
      for (const e of exec.env ?? []) env[e.name] = e.value;
      env.KUBERNETES_EXEC_INFO = JSON.stringify(info);
      let child: ChildProcess;
      try {
        child = spawn(exec.command, [...(exec.args ?? [])], { env, stdio: ["ignore", "pipe", "pipe"] });
      } catch (error) {
        reject(failure(`cannot start it: ${(error as Error).message}`));
        return;
      }
      children.add(child);
      let stdout = "";
      let stderr = "";
      child.stdout?.setEncoding("utf8").on("data", (d: string) => {
        if (stdout.length < 1_000_000) stdout += d;
      });
      child.stderr?.setEncoding("utf8").on("data", (d: string) => {
        if (stderr.length < 4_096) stderr += d;
      });
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(failure(`no answer within ${Math.round(timeoutMs / 1000)} s; killed it`));
      }, timeoutMs);
      child.on("error", (error) => {
        clearTimeout(timer);
        children.delete(child);
        reject(failure(`cannot run it: ${error.message}`));
      });
      child.on("close", (code) => {
        clearTimeout(timer);
        children.delete(child);
        if (code !== 0) {
          reject(
            failure(`exited ${code ?? "on a signal"}${stderr.trim() ? `: ${stderr.trim().split("\n").at(-1)}` : ""}`),
          );
          return;
        }
        try {
          resolve(parseCredential(stdout));
        } catch (error) {
          reject(failure((error as Error).message));
        }
      });
    });

  const failure = (why: string) =>
    new KubeError("unauthorized", `kubeconfig exec plugin ${name} gave no credential: ${why}`);

  return {
    async get() {
      const t = now();
      if (cached && (cached.expiresAt === undefined || cached.expiresAt > t || t < expiredUntil)) return cached;
      if (failed && t < failed.until) throw failed.error;
      running ??= run().finally(() => {
        running = undefined;
      });
      try {
        const credential = await running;
        failed = undefined;
        if (credential.expiresAt !== undefined && credential.expiresAt <= now()) {
          // Asking again at every request would run the plugin hundreds of times a minute for the same answer.
          const wait = nextBackoff();
          expiredUntil = now() + wait;
          log(
            `kubeconfig exec plugin ${name} answered a credential that expired at ${new Date(credential.expiresAt).toISOString()}; using it, asking again in ${Math.round(wait / 1000)} s`,
          );
        } else backoff = 0;
        cached = credential;
        return credential;
      } catch (error) {
        const e = error instanceof KubeError ? error : failure((error as Error).message);
        const wait = nextBackoff();
        failed = { error: e, until: now() + wait };
        log(`${e.message} (trying again in ${Math.round(wait / 1000)} s)`);
        throw e;
      }
    },
    close() {
      process.removeListener("exit", killAll);
      killAll();
    },
  };
}

/** The ExecCredential a plugin printed; throws naming what is wrong with it. */
function parseCredential(stdout: string): ExecCredential {
  let parsed: { kind?: string; status?: Record<string, unknown> };
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new Error(`its output is not an ExecCredential (not JSON: ${JSON.stringify(stdout.slice(0, 60))})`);
  }
  const status = parsed?.status;
  if (parsed?.kind !== "ExecCredential" || !status || typeof status !== "object")
    throw new Error("its output is not an ExecCredential with a status");
  const str = (v: unknown) => (typeof v === "string" && v ? v : undefined);
  const token = str(status.token);
  const clientCertificateData = str(status.clientCertificateData);
  const clientKeyData = str(status.clientKeyData);
  if (!token && !(clientCertificateData && clientKeyData))
    throw new Error("its ExecCredential has neither a token nor a client certificate and key");
  const expiry = str(status.expirationTimestamp);
  const expiresAt = expiry ? Date.parse(expiry) : undefined;
  return {
    ...(token ? { token } : {}),
    ...(clientCertificateData && clientKeyData ? { clientCertificateData, clientKeyData } : {}),
    ...(expiresAt !== undefined && !Number.isNaN(expiresAt) ? { expiresAt } : {}),
  };
}
