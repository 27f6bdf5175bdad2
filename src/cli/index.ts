import { defineCommand } from "citty";
import { VERSION } from "../version.ts";

/** The root command: `mon run | lint | features | explain | record | replay | demo | sim | install`, `--version`, `--help` (spec 4.4). Subcommands load lazily. */
export const main = defineCommand({
  meta: {
    name: "mon",
    version: VERSION,
    description: "In-cluster Kubernetes failure monitor: one incident per root cause, delivered without loss.",
  },
  subCommands: {
    run: () => import("./commands/run.ts").then((m) => m.default),
    lint: () => import("./commands/lint.ts").then((m) => m.default),
    features: () => import("./commands/features.ts").then((m) => m.default),
    explain: () => import("./commands/explain.ts").then((m) => m.default),
    replay: () => import("./commands/replay.ts").then((m) => m.default),
    record: () => import("./commands/record.ts").then((m) => m.default),
    demo: () => import("./commands/demo.ts").then((m) => m.default),
    sim: () => import("./commands/sim.ts").then((m) => m.default),
    install: () => import("./commands/install.ts").then((m) => m.default),
  },
});
