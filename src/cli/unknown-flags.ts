import type { ArgsDef, CommandDef, Resolvable } from "citty";
import { closestName } from "../config/unknown-keys.ts";

const resolve = async <T>(value: Resolvable<T> | undefined): Promise<T | undefined> =>
  typeof value === "function" ? await (value as () => T | Promise<T>)() : await value;

/** A flag of one command: its names (long, kebab and camel forms, aliases), and whether it takes a value. */
interface Flag {
  readonly names: readonly string[];
  readonly boolean: boolean;
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

function flagsOf(args: ArgsDef, root: boolean): Flag[] {
  const flags: Flag[] = [{ names: ["help", "h"], boolean: true }];
  if (root) flags.push({ names: ["version", "v"], boolean: true });
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    const alias = "alias" in def && def.alias ? [def.alias].flat() : [];
    const boolean = def.type === "boolean";
    const names = [name, kebab(name), camel(name), ...alias];
    flags.push({ names: boolean ? [...names, ...names.map((n) => `no-${n}`)] : names, boolean });
  }
  return flags;
}

/**
 * The first flag on `argv` (the words after `mon`) that the command it reaches does not declare, as one line:
 * `mon lint: unknown flag --stirct (did you mean --strict?); `mon lint --help` lists its flags`; undefined when every flag is known (issue 52). The
 * command is found as citty finds it (a word naming a subcommand descends into it); `--` ends the flags; a flag
 * that takes a value takes the next word unless given as `--flag=value`. Negative numbers are values, not flags.
 */
export async function unknownFlag(root: CommandDef, argv: readonly string[]): Promise<string | undefined> {
  let cmd = root;
  let path = "mon";
  let flags = flagsOf((await resolve(cmd.args)) ?? {}, true);
  for (let at = 0; at < argv.length; at++) {
    const word = argv[at]!;
    if (word === "--") return undefined;
    if (!word.startsWith("-") || word === "-" || /^-\d/.test(word)) {
      const subs = await resolve(cmd.subCommands);
      const sub = subs?.[word];
      if (!sub) continue;
      cmd = (await resolve(sub)) as CommandDef;
      path = `${path} ${word}`;
      flags = flagsOf((await resolve(cmd.args)) ?? {}, false);
      continue;
    }
    const long = word.startsWith("--");
    const body = long ? word.slice(2) : word.slice(1);
    const name = body.includes("=") ? body.slice(0, body.indexOf("=")) : body;
    // -abc is three short flags, as citty reads it; each must be known.
    const names = long || name.length === 1 ? [name] : [...name];
    for (const n of names) {
      const flag = flags.find((f) => f.names.includes(n));
      if (!flag) {
        const known = flags.flatMap((f) => f.names).filter((k) => k.length > 1 && k === kebab(k));
        const hint = long ? closestName(n, known) : undefined;
        return `${path}: unknown flag ${long ? "--" : "-"}${n}${hint ? ` (did you mean --${hint}?)` : ""}; \`${path} --help\` lists its flags`;
      }
      if (!flag.boolean && !body.includes("=") && n === names[names.length - 1]) at++;
    }
  }
  return undefined;
}
