import { consola } from "consola";
import { stringify } from "yaml";
import { connectKube } from "../kube/connection.ts";
import { KubeError } from "../kube/errors.ts";
import { createOutboundClient } from "../outbound/client.ts";
import { answersFrom, askText, type InstallFlags, setPairs } from "./answers.ts";
import { installedFeatures, readInstalled, runInstall } from "./install.ts";
import { LICENSE_SECRET } from "./plan.ts";
import { runUninstall } from "./uninstall.ts";

/**
 * What `mon install` does with its parsed flags (spec 4.4, 9.3; docs/install.md "The installer"), from flags to
 * applied objects: `features` lists the installed release's feature catalog; `--uninstall` removes mon
 * (uninstall.ts); otherwise the answers (answers.ts: flags, then prompts on a terminal) edit the installed
 * configuration and the objects are planned (plan.ts) and applied (apply.ts) by install.ts, each reported on
 * one line. Exit 0 done, 1 refused (one line per problem), 2 bad flags.
 */
export async function runInstallCommand(
  args: InstallFlags & { namespace: string; purge: boolean; uninstall: boolean; yes: boolean; "dry-run": boolean },
  rawArgs: readonly string[],
): Promise<void> {
  const fail = (message: string, code = 1): never => {
    consola.error(message);
    process.exit(code);
  };
  try {
    const connection = await connectKube(args.kubeconfig ? { kubeconfigPath: String(args.kubeconfig) } : {});
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
}

// --- internal ---

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
