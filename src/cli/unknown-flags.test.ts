import { describe, expect, test } from "bun:test";
import type { ArgsDef, CommandDef } from "citty";
import fc from "fast-check";
import { runCli } from "../testing/cli.ts";
import { main } from "./index.ts";
import { unknownFlag } from "./unknown-flags.ts";

/** Every command reachable from `mon` with its path and declared args. */
async function commands(): Promise<{ path: string[]; args: ArgsDef }[]> {
  const out: { path: string[]; args: ArgsDef }[] = [];
  const walk = async (cmd: CommandDef, path: string[]) => {
    const subs = typeof cmd.subCommands === "function" ? await cmd.subCommands() : await cmd.subCommands;
    out.push({ path, args: (typeof cmd.args === "function" ? await cmd.args() : await cmd.args) ?? {} });
    for (const [name, sub] of Object.entries(subs ?? {}))
      await walk((typeof sub === "function" ? await sub() : await sub) as CommandDef, [...path, name]);
  };
  await walk(main, []);
  return out;
}

const flags = (args: ArgsDef) => Object.entries(args).filter(([, d]) => d.type !== "positional");

describe("a flag no command declares is an error, not ignored (issue 52 item 9)", () => {
  test("every declared flag of every command is accepted, as --flag, --flag=value, --no-flag for booleans and its alias", async () => {
    const all = await commands();
    expect(all.map((c) => c.path.join(" "))).toContain("install");
    for (const { path, args } of all)
      for (const [name, def] of flags(args)) {
        const forms =
          def.type === "boolean" ? [[`--${name}`], [`--no-${name}`]] : [[`--${name}`, "x"], [`--${name}=x`]];
        if ("alias" in def && def.alias)
          for (const a of [def.alias].flat()) forms.push([`-${a}`, ...(def.type === "boolean" ? [] : ["x"])]);
        for (const form of forms)
          expect([path, form, await unknownFlag(main, [...path, ...form])]).toEqual([path, form, undefined]);
      }
  });

  test("any one-letter slip in any command's flag is refused, naming the command and suggesting the flag", async () => {
    const all = (await commands()).filter((c) => flags(c.args).length > 0);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...all),
        fc.nat(),
        fc.nat(),
        fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz"),
        fc.constantFrom("drop", "double", "swap", "replace"),
        async (c, which, at, letter, slip) => {
          const declared = flags(c.args).map(([n]) => n);
          const name = declared[which % declared.length]!;
          const i = at % name.length;
          const typo =
            slip === "drop"
              ? name.slice(0, i) + name.slice(i + 1)
              : slip === "double"
                ? name.slice(0, i) + name[i] + name.slice(i)
                : slip === "swap"
                  ? name.slice(0, i) + (name[i + 1] ?? "") + name[i] + name.slice(i + 2)
                  : name.slice(0, i) + letter + name.slice(i + 1);
          const known = new Set([...declared, ...declared.map((n) => `no-${n}`), "help", "version"]);
          fc.pre(typo.length > 1 && !known.has(typo));
          const said = await unknownFlag(main, [...c.path, `--${typo}`, "x"]);
          expect(said).toStartWith(`${["mon", ...c.path].join(" ")}: unknown flag --${typo}`);
          // The suggestion is a declared flag at most two edits away (the slipped one, or one as close).
          expect(said).toMatch(/\(did you mean --[a-z-]+\?\)/);
        },
      ),
      { numRuns: 300 },
    );
  });

  test("values, positionals, negative numbers and what follows -- are not flags", async () => {
    expect(await unknownFlag(main, ["lint", "config.yaml"])).toBeUndefined();
    expect(await unknownFlag(main, ["install", "--namespace", "--not-a-flag"])).toBeUndefined();
    expect(await unknownFlag(main, ["replay", "-1"])).toBeUndefined();
    expect(await unknownFlag(main, ["lint", "--", "--anything"])).toBeUndefined();
    expect(await unknownFlag(main, ["lint", "-sx"])).toStartWith("mon lint: unknown flag -");
  });

  test("through the binary: mon lint --stirct and mon run --kubeconfg exit 2 with the suggestion and do nothing", async () => {
    const home = "/nonexistent-home";
    const lint = await runCli(["lint", "config.yaml", "--stirct"], { home });
    expect([lint.code, lint.stderr.trim()]).toEqual([
      2,
      "mon lint: unknown flag --stirct (did you mean --strict?); `mon lint --help` lists its flags",
    ]);
    const run = await runCli(["run", "--kubeconfg", "sim.kubeconfig"], { home, env: { KUBECONFIG: "/elsewhere" } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("mon run: unknown flag --kubeconfg (did you mean --kubeconfig?)");
    expect(run.stdout).toBe("");
  });
});
