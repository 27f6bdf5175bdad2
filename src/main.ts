import "./cli/terminal.ts";
import { renderUsage, runMain } from "citty";
import { main } from "./cli/index.ts";
import { unknownFlag } from "./cli/unknown-flags.ts";

/** The root's own flags, which citty handles but does not list. */
const ROOT_OPTIONS = "OPTIONS\n\n  --version, -v    Print mon's version\n  --help, -h       Show this help";

// citty ignores a flag no command declares: a typo would change nothing, silently (`mon run --kubeconfg x` would
// watch another cluster). Refused before anything runs, with exit 2 as for any usage error (spec 4.4).
const argv = process.argv.slice(2);
if (!argv.includes("--help") && !argv.includes("-h")) {
  const refused = await unknownFlag(main, argv);
  if (refused) {
    console.error(refused);
    process.exit(2);
  }
}

await runMain(main, {
  async showUsage(cmd, parent) {
    const usage = await renderUsage(cmd, parent);
    console.log(
      `${(cmd as unknown) === main ? usage.replace(/\n\n(?=\S*COMMANDS)/, `\n\n${ROOT_OPTIONS}\n\n`) : usage}\n`,
    );
  },
});
