import type { Simulator } from "./simulator.ts";

/** One timed step of a scenario: at `atMs` after the start, `run` changes the simulated cluster. */
export interface ScenarioStep {
  readonly atMs: number;
  readonly say: string;
  run(sim: Simulator, now: number): void;
}

/** A scripted cluster life (ARCHITECTURE.md "Scenarios"): a starting state and timed steps. */
export interface Scenario {
  readonly name: string;
  readonly description: string;
  /** Creates the starting objects. */
  setup(sim: Simulator, now: number): void;
  readonly steps: readonly ScenarioStep[];
}

/**
 * Plays a scenario's steps in order on `sim`, waiting with `sleep` between them; `onStep` is told each
 * step's sentence. Resolves after the last step. `now` is epoch ms.
 */
export async function playScenario(
  scenario: Scenario,
  sim: Simulator,
  options: { now: () => number; sleep: (ms: number) => Promise<void>; onStep?: (say: string) => void },
): Promise<void> {
  const start = options.now();
  for (const step of scenario.steps) {
    const wait = start + step.atMs - options.now();
    if (wait > 0) await options.sleep(wait);
    options.onStep?.(step.say);
    step.run(sim, options.now());
  }
}
