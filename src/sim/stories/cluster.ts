import type { Simulator } from "../simulator.ts";
import type { KubeObject } from "../store.ts";

/**
 * What a story does to a cluster, as a user with kubectl would (docs/simulator.md "Stories"): the simulator's
 * controllers, or a real control plane with the kubelet stand-in (issue 40). Objects are written in the
 * story's own namespace, `shop`, and name nodes `worker-N`; a real cluster's adapter moves both to the names it
 * gives the story, so stories run side by side.
 */
export interface StoryCluster {
  /** `kubectl apply`: creates the object, or replaces what a manifest sets (spec, labels, annotations, data). */
  apply(object: KubeObject): void;
  /** The pods labelled `app: <app>` in the story's namespace, not being deleted, in name order. */
  podsOf(app: string): KubeObject[];
  /** `kubectl annotate pod NAME k=v --overwrite` (a null value removes the annotation). */
  annotatePod(name: string, annotations: Readonly<Record<string, string | null>>): void;
  /** `kubectl delete <plural> NAME` (pods with their grace period) in the story's namespace. */
  remove(plural: string, name: string, group?: string, version?: string): void;
  /**
   * A volume is provided for the claim (a provisioner's work): the claim binds. The simulator marks it Bound;
   * a real cluster gets a PersistentVolume made for it, which its PV controller binds.
   */
  bindClaim(name: string): void;
  /** The node's kubelet stops posting status (the node is lost). */
  stopKubelet(node: string): void;
  /** The node's kubelet posts status again. */
  startKubelet(node: string): void;
  /**
   * The node's kubelet restarts (stopped and started again within seconds, not a reboot): its containers keep
   * running, the node stays Ready.
   */
  restartKubelet(node: string): void;
  /**
   * Epoch ms at which the story's step `step` (0-based, in `steps` order) runs in this telling. What a step does
   * in place on real pods is the container's own doing at that time (issue 50: a probe handler fixed, a database
   * back): its command reads the time, as the simulated kubelet reads the step's annotation.
   */
  stepAt(step: number): number;
}

/** When a telling of a story runs its steps: its zero (epoch ms) and each step's second. */
export interface StorySchedule {
  readonly zeroMs: number;
  readonly seconds: readonly number[];
}

/** `stepAt` of a schedule. Throws for a step the story does not have. */
export function stepAtOf(schedule: StorySchedule): (step: number) => number {
  return (step) => {
    const t = schedule.seconds[step];
    if (t === undefined) throw new Error(`the story has no step ${step}`);
    return schedule.zeroMs + t * 1000;
  };
}

/**
 * The simulator as a story's cluster: its store and controllers, in process; `schedule` is when this telling
 * runs its steps (without one, a step's time is asked of no one: `stepAt` throws).
 */
export function simStoryCluster(sim: Simulator, schedule?: StorySchedule): StoryCluster {
  const pods = sim.typeOf("", "v1", "pods");
  const stepAt = schedule
    ? stepAtOf(schedule)
    : () => {
        throw new Error("this telling of the story has no schedule");
      };
  return {
    apply: (object) => sim.apply(object),
    // The store lists in name order.
    podsOf: (app) =>
      sim.store.list(pods, "shop").filter((p) => p.metadata.labels?.app === app && !p.metadata.deletionTimestamp),
    annotatePod: (name, annotations) =>
      void sim.store.patch(pods, "shop", name, "application/merge-patch+json", { metadata: { annotations } }),
    remove: (plural, name, group = "", version = "v1") =>
      void sim.store.delete(sim.typeOf(group, version, plural), "shop", name),
    bindClaim: (name) => void sim.patchStatus("v1", "PersistentVolumeClaim", "shop", name, { phase: "Bound" }),
    stopKubelet: (node) => sim.controllers?.stopKubelet(node),
    startKubelet: (node) => sim.controllers?.startKubelet(node),
    // Back before the node lifecycle controller notices (its grace is 20 s at least): the node stays Ready.
    restartKubelet: (node) => {
      sim.controllers?.stopKubelet(node);
      sim.controllers?.startKubelet(node);
    },
    stepAt,
  };
}
