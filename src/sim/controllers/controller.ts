import type { ControllerApi } from "./api.ts";

/**
 * One of the simulator's controllers (docs/simulator.md "Controllers"): level-triggered, it reads the cluster
 * and writes what should be; it runs after every change it could care about and at the times it asks for.
 */
export interface Controller {
  readonly name: string;
  /** Moves the cluster toward its desired state. Returns the next epoch ms at which it must run again, if any. */
  sync(api: ControllerApi): number | undefined;
}
