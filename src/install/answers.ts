import { readFileSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import { consola } from "consola";
import { type CatalogField, choiceGroups } from "./catalog.ts";
import { questionsFor, unknownProvider } from "./config-edit.ts";
import { type InstallAnswers, type Installed, releaseProviders } from "./install.ts";
import { splitApiServer } from "./plan.ts";

/** The flags of `mon install` as citty parsed them (src/cli/commands/install.ts). */
export type InstallFlags = Record<string, unknown>;

/** Every `--set name=value` (citty keeps only the last of a repeated flag). */
export function setPairs(rawArgs: readonly string[]): Record<string, string> {
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
export async function askText(question: string, options: { initial?: string; secret?: boolean } = {}): Promise<string> {
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
export async function answersFrom(
  args: InstallFlags,
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
    ...(args["api-server"] !== undefined ? { apiServer: apiServer(String(args["api-server"])) } : {}),
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

/** `--api-server`: "" turns the host-network component off; otherwise it must be host:port. */
function apiServer(text: string): string {
  if (text.trim() === "") return "";
  splitApiServer(text);
  return text.trim();
}
