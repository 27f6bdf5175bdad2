import { defineCommand } from "citty";
import { formatLintReport, lint } from "../../app/commands/lint.ts";

/**
 * `mon lint [FILE]` (spec 4.4): validates the configuration as startup would; `--strict` rejects unknown keys;
 * `--check` also tests provider credentials; `--format json` for CI systems. Exit 0 when valid (warnings
 * allowed), 1 on errors, 2 when the file cannot be read. `--overlay FILE` merges MonConfig objects over it as
 * the running mon would (an invalid overlay is an error here; mon would reject it and keep its configuration).
 * Writes the report on standard output.
 */
export default defineCommand({
  meta: { name: "lint", description: "Validate a configuration file (FILE, --config, or CONFIG_FILE)." },
  args: {
    file: { type: "positional", required: false, description: "Configuration file (default: CONFIG_FILE)" },
    config: { type: "string", description: "Configuration file (same as FILE)" },
    strict: { type: "boolean", description: "Reject unknown keys", default: false },
    check: { type: "boolean", description: "Also test provider credentials (no messages are sent)", default: false },
    format: { type: "string", description: "text or json", default: "text" },
    overlay: { type: "string", description: "A file of MonConfig objects to merge over it, as mon would" },
  },
  async run({ args }) {
    if (args.format !== "text" && args.format !== "json") {
      process.stderr.write(`--format must be text or json, not ${args.format}\n`);
      process.exit(2);
    }
    const path = (args.file as string | undefined) || args.config || undefined;
    const report = await lint({
      env: process.env,
      ...(path ? { path } : {}),
      ...(args.overlay ? { overlay: args.overlay } : {}),
      strict: args.strict,
      check: args.check,
    });
    process.stdout.write(args.format === "json" ? `${JSON.stringify(report, null, 2)}\n` : formatLintReport(report));
    process.exit(report.exitCode);
  },
});
