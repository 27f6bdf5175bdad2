import { stringify } from "yaml";
import { parseConfig } from "../../config/load.ts";
import { CONFIG_DOMAIN } from "../../config-domain.ts";
import { connectKube } from "../../kube/connection.ts";
import { createSystemClock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import { playScenario, type Scenario } from "../../sim/scenario.ts";
import { demoScenario } from "../../sim/scenarios/demo.ts";
import { startSimulator } from "../../sim/simulator.ts";
import { startDaemon, type Daemon } from "../daemon.ts";

/** Options of `mon demo`. */
export interface DemoOptions {
  readonly logger: Logger;
  /** Where delivered messages and the story's narration are written. */
  readonly stdout: (text: string) => void;
  readonly scenario?: Scenario;
  /** Health server port; 0 picks a free one. */
  readonly healthPort?: number;
  /** Extra `alert:` providers besides `stdout` (tests add a capture webhook). */
  readonly alert?: Record<string, Record<string, unknown>>;
  /** Called once the daemon runs, before the story starts. */
  readonly onStarted?: (daemon: Daemon) => void;
  /** Keep serving after the story until this resolves. */
  readonly keepUntil?: Promise<void>;
}

/** What a demo run did. */
export interface DemoResult {
  readonly announced: number;
  readonly updated: number;
  readonly resolved: number;
  readonly openAtEnd: number;
}

/**
 * The main job on an embedded default (`mon demo`): starts the simulator in-process over HTTPS, plays the
 * scenario, runs the real daemon against it with the `stdout` provider, and returns once every incident has
 * resolved and every message is delivered (or 20 s after the last step).
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const scenario = options.scenario ?? demoScenario;
  const clock = createSystemClock();
  const sim = await startSimulator();
  try {
    scenario.setup(sim, clock.now());
    // Every node gets a fake kubelet on loopback, so kubelet statistics are read as in a real cluster.
    await Promise.all(
      sim.store.list(sim.typeOf("", "v1", "nodes"), undefined).map((node) => sim.startKubelet(node.metadata.name)),
    );
    const alert = options.alert ?? { stdout: {} };
    const config = parseConfig(
      // The demo calls nothing outside this machine: no telemetry, no update check.
      stringify({
        app: { clusterName: "demo" },
        telemetry: { enabled: false },
        upgrader: { disableUpdateCheck: true },
        alert,
      }),
      "demo configuration",
      process.env,
      CONFIG_DOMAIN,
    );
    const connection = await connectKube({ kubeconfigText: sim.kubeconfig() });
    const daemon = await startDaemon({
      config,
      connection,
      clock,
      logger: options.logger,
      stdout: options.stdout,
      healthPort: options.healthPort ?? 0,
      healthHost: "127.0.0.1",
    });
    try {
      if (!(await daemon.waitForSync(15_000))) throw new Error("the simulator's caches did not sync within 15 s");
      options.onStarted?.(daemon);
      options.stdout(`mon demo: ${scenario.description}\n\n`);
      await playScenario(scenario, sim, {
        now: clock.now,
        sleep: (ms) => clock.sleep(ms),
        onStep: (say) => options.stdout(`\n▶ ${say}\n\n`),
      });
      const deadline = clock.now() + 20_000;
      while (clock.now() < deadline) {
        const open = await daemon.metrics.incidentsOpen.get();
        if ((open.values[0]?.value ?? 0) === 0 && (await daemon.delivery.drain(250))) break;
        await clock.sleep(250);
      }
      if (options.keepUntil) await options.keepUntil;
      const totals = await daemon.metrics.incidentsTotal.get();
      const count = (action: string) => totals.values.find((v) => v.labels.action === action)?.value ?? 0;
      const open = (await daemon.metrics.incidentsOpen.get()).values[0]?.value ?? 0;
      return { announced: count("announce"), updated: count("update"), resolved: count("resolve"), openAtEnd: open };
    } finally {
      await daemon.stop(5_000);
    }
  } finally {
    await sim.stop();
  }
}
