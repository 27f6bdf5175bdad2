import { defineCommand } from "citty";
import { record } from "../../app/commands/record.ts";
import { parseDuration } from "../../config/duration.ts";
import { connectKube } from "../../kube/connection.ts";
import { createSystemClock } from "../../runtime/clock.ts";
import { createLogger } from "../../runtime/logger.ts";

/** `10MiB`, `500MB`, `1GiB`, `4096` (bytes) → bytes; undefined when it is none of those. */
export function parseSize(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(B|KB|KiB|MB|MiB|GB|GiB)?$/.exec(text.trim());
  if (!m) return undefined;
  const unit = { B: 1, KB: 1e3, KiB: 1024, MB: 1e6, MiB: 1024 ** 2, GB: 1e9, GiB: 1024 ** 3 }[m[2] ?? "B"] ?? 1;
  return Math.round(Number(m[1]) * unit);
}

/**
 * `mon record --out DIR [--duration 1h] [--max-bytes 100MiB] [--kubeconfig FILE]` (issue 32): records the
 * cluster read-only into a timeline `mon replay` reads (app/commands/record.ts). Stops at its length, its size,
 * or on SIGINT/SIGTERM, keeping what was recorded. Exits 1 on a bad flag or a cluster it cannot reach.
 */
export default defineCommand({
  meta: { name: "record", description: "Record the cluster's watch events into a timeline for mon replay." },
  args: {
    out: { type: "string", description: "the directory to write", required: true },
    duration: { type: "string", description: "how long to record after the first sync", default: "1h" },
    "max-bytes": { type: "string", description: "largest events.jsonl", default: "100MiB" },
    kubeconfig: { type: "string", description: "kubeconfig (default: KUBECONFIG, ~/.kube/config, in-cluster)" },
    secrets: {
      type: "boolean",
      default: true,
      description:
        "record Secrets as mon keeps them: keys and salted value hashes, never values (--no-secrets: leave them out)",
    },
  },
  async run({ args }) {
    const fail = (message: string) => {
      process.stderr.write(`mon record: ${message}\n`);
      process.exit(1);
    };
    let durationMs: number;
    try {
      durationMs = parseDuration(args.duration);
    } catch (error) {
      return fail(`--duration: ${(error as Error).message}`);
    }
    const maxBytes = parseSize(args["max-bytes"]);
    if (!maxBytes) return fail(`--max-bytes: "${args["max-bytes"]}" is not a size (e.g. 100MiB, 500MB)`);
    const logger = createLogger();
    let connection: Awaited<ReturnType<typeof connectKube>>;
    try {
      connection = await connectKube({ ...(args.kubeconfig ? { kubeconfigPath: args.kubeconfig } : {}) });
    } catch (error) {
      return fail((error as Error).message);
    }
    const recording = record({
      connection,
      clock: createSystemClock(),
      logger,
      out: args.out,
      durationMs,
      maxBytes,
      secrets: args.secrets,
    });
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => recording.stop());
    const { end, events, bytes } = await recording.done;
    process.stderr.write(`mon record: ${events} events, ${bytes} bytes in ${args.out} (ended by ${end})\n`);
    process.exit(0);
  },
});
