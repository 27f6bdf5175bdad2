import { defineCommand } from "citty";
import { runDemo } from "../../app/commands/demo.ts";
import { createLogger } from "../../runtime/logger.ts";
import { onShutdownSignal } from "../../runtime/signals.ts";

/** `mon demo`: the main job against the built-in simulator; exits 0 when the story ends with every incident resolved. */
export default defineCommand({
  meta: { name: "demo", description: "Run mon against the built-in cluster simulator and print what it delivers." },
  args: {
    keep: {
      type: "boolean",
      description: "Keep serving (health, metrics) after the story until interrupted",
      default: false,
    },
    port: { type: "string", description: "Health server port (default: a free port)" },
    verbose: { type: "boolean", description: "Show mon's own log lines", default: false },
  },
  async run({ args }) {
    const logger = createLogger({ level: args.verbose ? 3 : 1 });
    const keepUntil = args.keep
      ? new Promise<void>((resolve) => {
          process.stdout.write("\n(--keep: serving until Ctrl-C)\n");
          onShutdownSignal(() => resolve());
        })
      : undefined;
    const result = await runDemo({
      logger,
      stdout: (text) => process.stdout.write(text),
      healthPort: args.port ? Number(args.port) : 0,
      keepUntil,
      onStarted: (daemon) =>
        process.stdout.write(`health and metrics: ${daemon.healthUrl() ?? "off"}/health, /metrics\n`),
    });
    process.stdout.write(
      `\nmon demo: ${result.announced} incidents announced, ${result.updated} updated, ${result.resolved} resolved, ${result.openAtEnd} still open\n`,
    );
    process.exit(result.openAtEnd === 0 && result.announced > 0 ? 0 : 1);
  },
});
