import { readFileSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import { defineCommand } from "citty";
import { consola } from "consola";
import { stringify } from "yaml";
import {
  type InstallAnswers,
  type Installed,
  installedFeatures,
  readInstalled,
  releaseProviders,
  runInstall,
} from "../../app/commands/install.ts";
import { type CatalogField, choiceGroups } from "../../install/catalog.ts";
import { questionsFor, unknownProvider } from "../../install/config-edit.ts";
import { connectKube } from "../../kube/connection.ts";
import { KubeError } from "../../kube/errors.ts";
import { createOutboundClient } from "../../outbound/client.ts";
import { runUninstall } from "../../app/commands/uninstall.ts";
import { LICENSE_SECRET } from "../../install/plan.ts";

/**
 * `mon install [features]` (spec 4.4, 9.3; docs/install.md "The installer"): installs or changes mon in a
 * cluster with the user's kubeconfig. Every question is also a flag; on a terminal without `--yes` the
 * unanswered ones are asked with consola's prompts (the provider catalog drives the provider's questions),
 * elsewhere the current installation's values are kept. `mon install features` lists the feature catalog of the
 * installed release. Exit 0 done, 1 refused (one line per problem), 2 bad flags.
 */
export default defineCommand({
  meta: { name: "install", description: "Install or change mon in a cluster (configuration, credentials, license)." },
  args: {
    action: { type: "positional", required: false, description: "features: list the installed release's features" },
    kubeconfig: { type: "string", description: "Path to a kubeconfig (default: KUBECONFIG, then ~/.kube/config)" },
    namespace: { type: "string", description: "mon's namespace", default: "mon" },
    "cluster-name": { type: "string", description: "app.clusterName" },
    provider: { type: "string", description: "An alert provider to add or reconfigure (mon features lists them)" },
    set: {
      type: "string",
      description: "An option of --provider as name=value (repeatable; credentials go to the Secret)",
    },
    "remove-provider": { type: "string", description: "Remove an alert provider and its credentials" },
    overlay: { type: "boolean", description: "Watch MonConfig overlays (--no-overlay turns it off)" },
    rbac: { type: "string", description: "full or least-privilege" },
    "watch-secrets": {
      type: "boolean",
      description: "Watch Secrets (--no-watch-secrets: no Secret permission at all)",
    },
    image: { type: "string", description: "The image (a mirror for air-gapped clusters)" },
    "proxy-url": {
      type: "string",
      description: "app.proxyURL (with credentials: stored in the Secret); empty removes it",
    },
    "ca-bundle": { type: "string", description: "A PEM file of CAs for outgoing HTTPS (app.caBundlePath)" },
    "egress-ports": {
      type: "string",
      description: "More egress ports in the NetworkPolicy (proxy, providers): 3128,8443",
    },
    ha: {
      type: "boolean",
      description: "Pro HA: a leader and a warm standby on the state volume (--no-ha: one replica)",
    },
    replicas: { type: "string", description: "Replicas with --ha (default 2)" },
    "network-policy": { type: "boolean", description: "The NetworkPolicy of the network-policy component" },
    "license-key": { type: "string", description: "Add or replace the Pro license key" },
    "remove-license": { type: "boolean", description: "Remove the license key (the binding is released)" },
    uninstall: {
      type: "boolean",
      description: "Remove what mon install created and release the license binding (keeps the key, state and CRD)",
      default: false,
    },
    purge: {
      type: "boolean",
      description: "With --uninstall: also the license Secrets, the state volume, the CRD and the namespace",
      default: false,
    },
    yes: { type: "boolean", description: "Ask nothing: flags and the current installation decide", default: false },
    "dry-run": { type: "boolean", description: "Print what would be applied (Secret values hidden)", default: false },
  },
  async run({ args, rawArgs }) {
    const fail = (message: string, code = 1): never => {
      consola.error(message);
      process.exit(code);
    };
    try {
      const connection = await connectKube(args.kubeconfig ? { kubeconfigPath: args.kubeconfig } : {});
      if (args.action === "features") {
        const { version, features, providers } = await installedFeatures(connection, args.namespace);
        const width = Math.max(...features.map((f) => f.id.length));
        process.stdout.write(
          [
            `Features of mon ${version} installed in ${args.namespace} (informational; spec 4.4):`,
            ...features.map(
              (f) =>
                `${f.id.padEnd(width)}  ${(f.edition === "pro" ? "Pro" : "").padEnd(3)}  ${f.description}${f.dependsOn.length ? ` (needs ${f.dependsOn.join(", ")})` : ""}`,
            ),
            "",
            `Alert providers (${providers.length}): ${providers.map((p) => p.name).join(", ")}`,
            "",
          ].join("\n"),
        );
        return;
      }
      if (args.action) fail(`unknown action ${args.action} (mon install, or mon install features)`, 2);
      if (args.purge && !args.uninstall) fail("--purge goes with --uninstall", 2);
      if (args.uninstall) return await uninstall(connection, args);
      const installed = await readInstalled(connection, args.namespace);
      const interactive = Boolean(process.stdin.isTTY) && !args.yes;
      const answers = await answersFrom(args, setPairs(rawArgs), installed, interactive);
      const report = await runInstall(connection, answers, { now: () => Date.now(), dryRun: args["dry-run"] });
      for (const w of report.warnings) consola.warn(w);
      if (report.planned) {
        process.stdout.write(report.planned.map((o) => stringify(o)).join("---\n"));
        return;
      }
      for (const a of report.applied) consola.log(`${a.object} ${a.result}`);
      if (report.rollout) consola.info("the configuration changed: the Deployment rolls its pods");
      if (report.licenseRemoved)
        consola.info(
          report.licenseRemoved.deactivated
            ? "license key removed; deactivated-at is set: the running leader releases the binding and turns Community"
            : "license key removed (no binding to release)",
        );
      consola.success(`mon ${installed.exists ? "updated" : "installed"} in namespace ${args.namespace}`);
    } catch (error) {
      if (error instanceof KubeError || error instanceof Error) fail(error.message);
      throw error;
    }
  },
});

// --- internal ---

type Args = Record<string, unknown>;

/** `mon install --uninstall [--purge]`: asks once on a terminal (unless --yes), then reports each object. */
async function uninstall(
  connection: Parameters<typeof runUninstall>[0],
  args: { namespace: string; purge: boolean; yes: boolean; "dry-run": boolean },
): Promise<void> {
  const plan = await runUninstall(connection, { ...uninstallOptions(args), dryRun: true });
  if (args["dry-run"]) {
    for (const d of plan.deleted) consola.log(`${d} would be deleted`);
    for (const k of plan.kept) consola.log(`${k.object} would be kept: ${k.why}`);
    return;
  }
  if (!args.yes && !process.stdin.isTTY) {
    consola.error(
      `mon install --uninstall asks before it deletes anything, and there is no terminal to ask on: add --yes to remove mon from namespace ${args.namespace} (--dry-run lists what would go)`,
    );
    process.exit(2);
  }
  if (!args.yes) {
    const answer = await askText(
      `Remove mon from namespace ${args.namespace} (${plan.deleted.length} objects${args.purge ? ", everything" : `; keeps ${plan.kept.length}`})? yes/no`,
    );
    if (!/^y(es)?$/i.test(answer)) {
      consola.info("nothing removed");
      return;
    }
  }
  const report = await runUninstall(connection, uninstallOptions(args));
  for (const d of report.deleted) consola.log(`${d} deleted`);
  for (const k of report.kept) consola.log(`${k.object} kept: ${k.why}`);
  const l = report.license;
  if (l?.result === "released") consola.info("license binding released: the key can activate another cluster now");
  if (l?.result === "failed")
    consola.warn(
      `the license binding could not be released (${l.server}: ${l.detail}): the license stays bound to this cluster; run mon install --uninstall again where ${l.server} can be reached`,
    );
  consola.success(`mon removed from namespace ${args.namespace}${reinstallNote(report.kept)}`);
}

/** What a later `mon install` finds of what was kept: the license key, the Pro state, the overlays. */
function reinstallNote(kept: readonly { readonly object: string }[]): string {
  const found = [
    ...(kept.some((k) => k.object.startsWith("Secret ") && k.object.endsWith(`/${LICENSE_SECRET}`))
      ? ["the kept license key"]
      : []),
    ...(kept.some((k) => k.object.startsWith("PersistentVolumeClaim ")) ? ["the kept state"] : []),
  ];
  return found.length ? `; mon install puts it back with ${found.join(" and ")}` : "";
}

function uninstallOptions(args: { namespace: string; purge: boolean }) {
  return { namespace: args.namespace, purge: args.purge, http: createOutboundClient(), env: process.env };
}

/** Every `--set name=value` (citty keeps only the last of a repeated flag). */
function setPairs(rawArgs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    const value = arg === "--set" ? rawArgs[++i] : arg.startsWith("--set=") ? arg.slice(6) : undefined;
    if (value === undefined) continue;
    const at = value.indexOf("=");
    if (at <= 0) throw new Error(`--set ${value}: expected name=value`);
    out[value.slice(0, at)] = value.slice(at + 1);
  }
  return out;
}

/**
 * One line of text from the terminal; a credential is not echoed. consola's own text prompt is not used: under
 * Bun it returns undefined whatever is typed (its readline keeps no line), while node:readline works on both.
 */
async function askText(question: string, options: { initial?: string; secret?: boolean } = {}): Promise<string> {
  process.stdout.write(`? ${question}${options.initial ? ` [${options.initial}]` : ""}: `);
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: process.stdin, output: options.secret ? muted : process.stdout, terminal: true });
  try {
    const answer = (await rl.question("")).trim();
    return answer || options.initial || "";
  } finally {
    rl.close();
    if (options.secret) process.stdout.write("\n");
  }
}

/** The answers from flags, asking what the flags leave open on a terminal. */
async function answersFrom(
  args: Args,
  values: Record<string, string>,
  installed: Installed,
  interactive: boolean,
): Promise<InstallAnswers> {
  const ask = async <T>(question: Promise<T | symbol>): Promise<T> => {
    const answer = await question;
    if (typeof answer === "symbol") throw new Error("cancelled");
    return answer;
  };
  if (args.rbac !== undefined && args.rbac !== "full" && args.rbac !== "least-privilege")
    throw new Error(`--rbac must be full or least-privilege, not ${args.rbac}`);
  const replicas = args.replicas === undefined ? undefined : Number(args.replicas);
  if (replicas !== undefined && !(Number.isInteger(replicas) && replicas >= 0))
    throw new Error(`--replicas must be a whole number, not ${args.replicas}`);
  if (args["license-key"] !== undefined && args["remove-license"])
    throw new Error("--license-key and --remove-license");

  let clusterName = args["cluster-name"] as string | undefined;
  let provider = args.provider as string | undefined;
  let overlay = args.overlay as boolean | undefined;
  let license: InstallAnswers["license"] =
    args["license-key"] !== undefined
      ? { action: "set", key: String(args["license-key"]) }
      : args["remove-license"]
        ? { action: "remove" }
        : undefined;
  if (interactive) {
    clusterName ??= await askText("Cluster name (shown in every message)", {
      initial: /clusterName:\s*(\S+)/.exec(installed.config.text)?.[1] ?? "default",
    });
    if (provider === undefined) {
      const providers = releaseProviders();
      const picked = await ask(
        consola.prompt("Add or reconfigure an alert provider?", {
          type: "select",
          options: [
            { label: "No", value: "" },
            ...providers.map((p) => ({ label: `${p.title} (${p.kind})`, value: p.name })),
          ],
          cancel: "symbol",
        }) as Promise<string | symbol>,
      );
      provider = picked || undefined;
    }
    if (provider) {
      const definition = releaseProviders().find((p) => p.name === provider);
      if (!definition) throw new Error(unknownProvider(provider, releaseProviders()));
      const choose = async (group: readonly CatalogField[]) => {
        const given = group.find((f) => values[f.field] !== undefined);
        if (given) return given;
        const name = await ask(
          consola.prompt(`${definition.title}: which one?`, {
            type: "select",
            options: group.map((f) => ({ label: `${f.field}: ${f.description}`, value: f.field })),
            cancel: "symbol",
          }) as Promise<string | symbol>,
        );
        return group.find((f) => f.field === name)!;
      };
      const chosen: CatalogField[] = [];
      for (const group of choiceGroups(definition.fields)) chosen.push(await choose(group));
      const questions = questionsFor(definition, (group) => chosen.find((f) => group.includes(f))!);
      for (const field of questions) {
        if (values[field.field] !== undefined) continue;
        consola.info(`${definition.title} ${field.field}: ${field.description}`);
        values[field.field] = await askText(`${field.field}${field.secret ? " (stored in a Secret, not shown)" : ""}`, {
          ...(field.default ? { initial: field.default } : {}),
          secret: field.secret,
        });
      }
    }
    overlay ??= await ask(
      consola.prompt("Watch MonConfig overlays (change settings with kubectl apply)?", {
        type: "confirm",
        initial: installed.shape.overlay,
        cancel: "symbol",
      }) as Promise<boolean | symbol>,
    );
    if (!license) {
      const action = await ask(
        consola.prompt(`License / Pro (${installed.licensed ? "a key is stored" : "no key: Community"})`, {
          type: "select",
          options: [
            { label: "Keep as it is", value: "keep" },
            { label: installed.licensed ? "Replace the key" : "Add a key", value: "set" },
            ...(installed.licensed ? [{ label: "Remove the key", value: "remove" }] : []),
          ],
          cancel: "symbol",
        }) as Promise<string | symbol>,
      );
      if (action === "set") {
        const key = await askText("License key (stored in the Secret mon-license, not shown)", { secret: true });
        if (!key) throw new Error("no license key was given");
        license = { action: "set", key };
      }
      if (action === "remove") license = { action: "remove" };
    }
  } else if (Object.keys(values).length && !provider) throw new Error("--set needs --provider");
  return {
    namespace: String(args.namespace),
    edits: {
      ...(clusterName !== undefined ? { clusterName } : {}),
      ...(provider ? { provider: { name: provider, values } } : {}),
      ...(args["remove-provider"] ? { removeProviders: [String(args["remove-provider"])] } : {}),
      ...(args["proxy-url"] !== undefined ? { proxyUrl: String(args["proxy-url"]) } : {}),
      ...(args["ca-bundle"] ? { caBundle: readFileSync(String(args["ca-bundle"]), "utf8") } : {}),
    },
    ...(overlay !== undefined ? { overlay } : {}),
    ...(args.rbac ? { rbacMode: args.rbac as "full" | "least-privilege" } : {}),
    ...(args["watch-secrets"] !== undefined ? { watchSecrets: Boolean(args["watch-secrets"]) } : {}),
    ...(args.image ? { image: String(args.image) } : {}),
    ...(replicas !== undefined ? { replicas } : {}),
    ...(args.ha !== undefined ? { ha: Boolean(args.ha) } : {}),
    ...(args["network-policy"] !== undefined ? { networkPolicy: Boolean(args["network-policy"]) } : {}),
    ...(args["egress-ports"] !== undefined ? { egressPorts: ports(String(args["egress-ports"])) } : {}),
    ...(license ? { license } : {}),
  };
}

function ports(text: string): number[] {
  const out = text
    .split(",")
    .filter((p) => p.trim())
    .map(Number);
  if (out.some((p) => !Number.isInteger(p) || p < 1 || p > 65535))
    throw new Error(`--egress-ports must be ports (1-65535) separated by commas, not ${text}`);
  return out;
}
