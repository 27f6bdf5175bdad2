import "./cli/terminal.ts";
import { renderUsage, runMain } from "citty";
import { main } from "./cli/index.ts";

/** The root's own flags, which citty handles but does not list. */
const ROOT_OPTIONS = "OPTIONS\n\n  --version, -v    Print mon's version\n  --help, -h       Show this help";

await runMain(main, {
  async showUsage(cmd, parent) {
    const usage = await renderUsage(cmd, parent);
    console.log(
      `${(cmd as unknown) === main ? usage.replace(/\n\n(?=\S*COMMANDS)/, `\n\n${ROOT_OPTIONS}\n\n`) : usage}\n`,
    );
  },
});
