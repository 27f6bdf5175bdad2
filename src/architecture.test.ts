import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/**
 * The dependency rule of ARCHITECTURE.md, read from the import lines of every source file: no stage
 * imports another stage; the pure core does no I/O and reads no wall clock; only app/ wires stages, only
 * cli/ imports app/; `Bun.*` only in runtime/.
 */
const SRC = import.meta.dirname;
const STAGES = ["kube", "probe", "detect", "correlate", "incident", "notify", "route", "deliver", "providers"];
const PURE = ["detect", "correlate", "incident", "notify", "redact", "page"];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return files(full);
    return name.endsWith(".ts") && !name.endsWith(".test.ts") ? [full] : [];
  });
}

const sources = files(SRC).map((path) => {
  const text = readFileSync(path, "utf8");
  const imports = [...text.matchAll(/^(?:import|export)[^"']*from\s+["']([^"']+)["']/gm)].map((m) => m[1]!);
  return { path: relative(SRC, path), layer: relative(SRC, path).split("/")[0]!, text, imports };
});

function importedLayers(source: (typeof sources)[number]): string[] {
  return source.imports
    .filter((i) => i.startsWith("."))
    .map((i) => relative(SRC, join(SRC, source.path, "..", i)).split("/")[0]!);
}

describe("architecture", () => {
  test("no stage imports another stage", () => {
    const offences = sources
      .filter((s) => STAGES.includes(s.layer))
      .flatMap((s) =>
        importedLayers(s)
          .filter((l) => STAGES.includes(l) && l !== s.layer)
          .map((l) => `${s.path} imports ${l}/`),
      );
    expect(offences).toEqual([]);
  });

  test("the pure core does no I/O and never reads the wall clock", () => {
    const offences = sources
      .filter((s) => PURE.includes(s.layer))
      .flatMap((s) => [
        ...s.imports
          .filter(
            (i) =>
              /^(node:)?(fs|net|http|https|child_process|dns|tls)$/.test(i) ||
              ["ofetch", "@kubernetes/client-node"].includes(i),
          )
          .map((i) => `${s.path} imports ${i}`),
        ...(/Date\.now\(\)|new Date\(\)|setTimeout\(|fetch\(/.test(s.text)
          ? [`${s.path} reads the clock or does I/O`]
          : []),
      ]);
    expect(offences).toEqual([]);
  });

  test("only app/ wires stages and only cli/ imports app/; model/ imports nothing of ours but model/", () => {
    // testing/ holds helpers imported only by tests, which run the whole daemon.
    const appImporters = sources
      .filter((s) => importedLayers(s).includes("app") && !["app", "cli", "testing"].includes(s.layer))
      .map((s) => s.path);
    expect(appImporters).toEqual([]);
    const modelOffences = sources
      .filter((s) => s.layer === "model")
      .flatMap((s) =>
        importedLayers(s)
          .filter((l) => l !== "model")
          .map((l) => `${s.path} imports ${l}/`),
      );
    expect(modelOffences).toEqual([]);
    const crossCutting = ["config", "health", "runtime", "server", "metrics.ts", "state", "outbound"];
    const upward = sources
      .filter((s) => crossCutting.includes(s.layer))
      .flatMap((s) =>
        importedLayers(s)
          .filter((l) => STAGES.includes(l) || l === "app" || l === "cli")
          .map((l) => `${s.path} imports ${l}/`),
      );
    expect(upward).toEqual([]);
  });

  test("deliver/ owns everything after routing: route/ is pure, only deliver/ retries, budgets or falls back", () => {
    // route/ is a pure function of a message (and the conversations it remembers): no clock, no I/O.
    const impureRoute = sources
      .filter((s) => s.layer === "route")
      .filter((s) => /Date\.now\(\)|new Date\(\)|setTimeout\(|fetch\(|\.sleep\(|setTimer\(/.test(s.text))
      .map((s) => s.path);
    expect(impureRoute).toEqual([]);
    // Backoff, budgets and fallbacks are deliver/'s stages; nothing outside deliver/ imports them (the providers'
    // test suite drives the retry stage against each provider: testing/ is no stage).
    const stagesOfDeliver = /\/deliver\/(backoff|budget|fallback|attempt|queue|records)\.ts$/;
    const outside = sources
      .filter((s) => s.layer !== "deliver" && s.layer !== "testing")
      .flatMap((s) => s.imports.filter((i) => stagesOfDeliver.test(join("/", i))).map((i) => `${s.path} imports ${i}`));
    expect(outside).toEqual([]);
    // The retry stage is the only code that waits between attempts (STYLE.md: never retry in two layers).
    const sleepers = sources
      .filter((s) => ["deliver", "providers", "route"].includes(s.layer) && /\.sleep\(/.test(s.text))
      .map((s) => s.path);
    expect(sleepers).toEqual(["deliver/attempt.ts"]);
  });

  test("providers read time from the send context or the injected clock, never the wall clock, and map tiers in one place (issue 31.6)", () => {
    const wall = sources
      .filter((s) => s.layer === "providers" && !s.path.endsWith("_kit/define.ts"))
      .filter((s) => /Date\.now\(\)|new Date\(\)(?!\.)/.test(s.text))
      .map((s) => s.path);
    expect(wall).toEqual([]);
    // One tier → vendor severity map (_kit/severity.ts): no provider compares tiers itself.
    const tiers = sources
      .filter((s) => s.layer === "providers" && !s.path.endsWith("_kit/severity.ts"))
      .filter((s) => /\.tier (===|!==)/.test(s.text))
      .map((s) => s.path);
    expect(tiers).toEqual([]);
    // Authorization headers come from _kit/auth.ts.
    const auth = sources
      .filter((s) => s.layer === "providers" && !s.path.endsWith("_kit/auth.ts"))
      .filter((s) => /`(Bearer|Basic) \$\{/.test(s.text))
      .map((s) => s.path);
    expect(auth).toEqual([]);
    // A refusal for good is built by _kit/outcome.ts permanent(), so it always names its closed failure.
    const refusals = sources
      .filter((s) => s.layer === "providers" && !s.path.endsWith("_kit/outcome.ts"))
      .filter((s) => /kind: "permanent"/.test(s.text))
      .map((s) => s.path);
    expect(refusals).toEqual([]);
    // Every request goes through the kit (sendAndClassify, jsonApi, formApi, exchangeJson, the AWS caller), which
    // classifies the answer and a network failure the same way for every provider.
    const raw = sources
      .filter((s) => s.layer === "providers" && !s.path.startsWith("providers/_kit/"))
      .filter((s) => /\.request\(/.test(s.text))
      .map((s) => s.path);
    expect(raw).toEqual([]);
    // Form bodies are built by formApi (SNS's is signed by the AWS caller, so it builds its own).
    const forms = sources
      .filter((s) => s.layer === "providers" && !s.path.startsWith("providers/_kit/") && s.path !== "providers/sns.ts")
      .filter((s) => /x-www-form-urlencoded/.test(s.text))
      .map((s) => s.path);
    expect(forms).toEqual([]);
  });

  test("the two composition roots only compose: at most 150 lines each (issue 31.1)", () => {
    const long = sources
      .filter((s) => s.path === "app/daemon.ts" || s.path === "app/leader.ts")
      .map((s) => [s.path, s.text.split("\n").length - 1] as const)
      .filter(([, lines]) => lines > 150);
    expect(long).toEqual([]);
    expect(sources.filter((s) => s.path === "app/daemon.ts" || s.path === "app/leader.ts")).toHaveLength(2);
  });

  test("Bun.* is used only behind the runtime adapter", () => {
    expect(sources.filter((s) => s.layer !== "runtime" && /\bBun\.[a-z]/.test(s.text)).map((s) => s.path)).toEqual([]);
  });

  test("@kubernetes/client-node is loaded only to read a kubeconfig, never for a mon in a cluster (issue 42)", () => {
    const loading = sources.filter((s) =>
      /(^|\n)import (?!type )[^;]*from "@kubernetes\/client-node"|import\("@kubernetes\/client-node"\)/.test(s.text),
    );
    expect(loading.map((s) => s.path)).toEqual(["kube/kubeconfig.ts"]);
    expect(loading[0]!.text).not.toMatch(/(^|\n)import (?!type )[^;]*from "@kubernetes\/client-node"/);
  });

  test("no computed imports (they fail inside the compiled binary)", () => {
    expect(sources.filter((s) => /import\(\s*`/.test(s.text)).map((s) => s.path)).toEqual([]);
  });

  test("installing lives in install/: the CLI's install command only parses flags (issue 43)", () => {
    const cli = sources.find((s) => s.path === "cli/commands/install.ts")!;
    expect(cli.imports).toEqual(["citty", "../../install/command.ts"]);
    // Nothing of the installer is anywhere else: no other layer holds an install or uninstall flow.
    const elsewhere = sources
      .filter((s) => s.layer !== "install" && /\b(runInstall|runUninstall|readInstalled)\(/.test(s.text))
      .filter((s) => !s.path.endsWith(".test.ts") && s.layer !== "testing")
      .map((s) => s.path);
    expect(elsewhere).toEqual([]);
  });
});
