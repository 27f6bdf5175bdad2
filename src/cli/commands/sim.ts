import { writeFileSync } from "node:fs";
import { defineCommand } from "citty";
import { createLogger } from "../../runtime/logger.ts";
import { onShutdownSignal } from "../../runtime/signals.ts";
import { playScenario } from "../../sim/scenario.ts";
import { demoScenario } from "../../sim/scenarios/demo.ts";
import { startSimulator } from "../../sim/simulator.ts";

const SCENARIOS = { demo: demoScenario } as const;

/** `mon sim`: serves the Kubernetes API simulator until stopped and writes a kubeconfig for it (kubectl works against it). */
export default defineCommand({
  meta: { name: "sim", description: "Serve the built-in Kubernetes API simulator over HTTPS on 127.0.0.1." },
  args: {
    kubeconfig: {
      type: "string",
      description: "Where to write the kubeconfig (server URL, CA data, token)",
      required: true,
    },
    port: { type: "string", description: "Port (default: a free port)" },
    scenario: {
      type: "string",
      description: `Scenario to play: ${Object.keys(SCENARIOS).join(", ")} (default: an empty cluster)`,
    },
  },
  async run({ args }) {
    const logger = createLogger();
    const scenario = args.scenario ? SCENARIOS[args.scenario as keyof typeof SCENARIOS] : undefined;
    if (args.scenario && !scenario) {
      logger.error(`unknown scenario ${args.scenario}; known: ${Object.keys(SCENARIOS).join(", ")}`);
      process.exit(1);
    }
    const sim = await startSimulator({ port: args.port ? Number(args.port) : 0 });
    writeFileSync(args.kubeconfig, sim.kubeconfig({ clientCert: true }), { mode: 0o600 });
    logger.info(`simulator on ${sim.server.url}; kubeconfig written to ${args.kubeconfig}`);
    onShutdownSignal(async () => {
      await sim.stop();
      process.exit(0);
    });
    if (scenario) {
      scenario.setup(sim, Date.now());
      await playScenario(scenario, sim, {
        now: () => Date.now(),
        sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
        onStep: (say) => logger.info(`scenario: ${say}`),
      });
      logger.info("scenario finished; still serving");
    }
  },
});
