import { writeFileSync } from "node:fs";
import { basename } from "node:path";
import { defineCommand } from "citty";
import { CONFIG_DOMAIN } from "../../config-domain.ts";
import { type Replayed, replay, replayDifference, replayPage } from "../../app/commands/replay.ts";
import { ConfigError } from "../../config/errors.ts";
import { loadConfig } from "../../config/load.ts";
import { loadTimeline, type Timeline } from "../../sim/timeline.ts";

/**
 * `mon replay DIR --config NEW.yaml [--config OLD.yaml]` (issue 32): runs the real engine on a fake clock over a
 * recorded timeline (`mon record`, or the recordings in src/sim/testdata) and prints the transcript each
 * provider would have received; with two configurations, the difference the second makes against the first
 * (what one tells and the other does not, and why; messages per provider). Nothing is sent. `--edition pro`
 * replays Pro's routes, maintenance and overrides (Community by default, as an unlicensed daemon). `--html FILE`
 * also writes the incidents page of the first configuration's replay (issue 44): one file, no script, to look at
 * or attach to a post-mortem.
 */
export default defineCommand({
  meta: { name: "replay", description: "Replay a recorded timeline through mon and print what it would have told." },
  args: {
    dir: { type: "positional", description: "a timeline directory (initial.json, events.jsonl)", required: true },
    config: { type: "string", description: "the configuration (twice: the new one, then the one to compare with)" },
    edition: { type: "string", description: "community or pro", default: "community" },
    format: { type: "string", description: "text or json", default: "text" },
    html: { type: "string", description: "Also write the incidents page of the (first) replay to this file" },
  },
  async run({ args, rawArgs }) {
    const fail = (message: string) => {
      process.stderr.write(`mon replay: ${message}\n`);
      process.exit(1);
    };
    const configs = rawArgs.flatMap((a, i) => (a === "--config" && rawArgs[i + 1] ? [rawArgs[i + 1]!] : []));
    if (configs.length === 0 || configs.length > 2)
      return fail("give --config once (its transcript) or twice (the difference)");
    if (args.edition !== "community" && args.edition !== "pro") return fail("--edition is community or pro");
    let timeline: Timeline;
    try {
      timeline = loadTimeline(args.dir);
    } catch (error) {
      return fail((error as Error).message);
    }
    const runs: { name: string; run: Replayed }[] = [];
    for (const path of configs) {
      try {
        const loaded = loadConfig({ env: process.env, path, domain: CONFIG_DOMAIN });
        runs.push({ name: basename(path), run: await replay(timeline, loaded, args.edition) });
      } catch (error) {
        if (error instanceof ConfigError) return fail(`${path}: ${error.message}`);
        throw error;
      }
    }
    const [first, second] = runs;
    if (!first) return;
    if (args.html) {
      try {
        writeFileSync(args.html, replayPage(timeline, first.name, first.run));
      } catch (error) {
        return fail(`${args.html}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
      process.stderr.write(`mon replay: wrote the incidents page to ${args.html}\n`);
    }
    if (args.format === "json") {
      process.stdout.write(
        `${JSON.stringify(
          runs.map((r) => ({ config: r.name, messages: r.run.lines })),
          null,
          2,
        )}\n`,
      );
      return;
    }
    const out: string[] = [
      `${timeline.name}: ${timeline.events.length} events over ${Math.round(timeline.lengthSeconds)} s`,
    ];
    for (const r of runs) {
      out.push("", `With ${r.name}: ${r.run.lines.length} message${r.run.lines.length === 1 ? "" : "s"}`);
      for (const l of r.run.lines)
        out.push(`  t=${l.t.toFixed(1).padStart(7)}  ${l.provider.padEnd(12)} ${l.action.padEnd(9)} ${l.title}`);
    }
    if (second)
      out.push(
        "",
        `What ${first.name} changes against ${second.name}:`,
        ...replayDifference(second, first).map((l) => `  ${l}`),
      );
    process.stdout.write(`${out.join("\n")}\n`);
  },
});
