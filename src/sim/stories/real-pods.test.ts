import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import type { KubeObject } from "../store.ts";
import type { StoryCluster } from "./cluster.ts";
import { STORIES } from "./index.ts";
import { BUSYBOX } from "./story.ts";

/** Every object a story applies when each of its steps runs once, on a cluster that only records them. */
function applied(story: (typeof STORIES)[number]): KubeObject[] {
  const out: KubeObject[] = [];
  const zero = Date.UTC(2026, 5, 1, 9);
  const cluster: StoryCluster = {
    apply: (o) => out.push(o),
    podsOf: (app) => [
      {
        metadata: { name: `${app}-0`, namespace: "shop", labels: { app } },
        status: { podIP: "10.244.0.7" },
      } as KubeObject,
    ],
    annotatePod: () => {},
    remove: () => {},
    bindClaim: () => {},
    stopKubelet: () => {},
    startKubelet: () => {},
    restartKubelet: () => {},
    stepAt: (i) => zero + (story.steps[i]?.t ?? 0) * 1000,
  };
  for (const step of story.steps) step.run(cluster);
  return out;
}

/** The containers of an object's pod spec (a Pod's, a workload's template, a CronJob's job template). */
function containersOf(o: KubeObject): KubeObject[] {
  const spec =
    o.kind === "Pod"
      ? o.spec
      : o.kind === "CronJob"
        ? o.spec?.jobTemplate?.spec?.template?.spec
        : o.spec?.template?.spec;
  return [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])];
}

describe("the stories told on real pods (issue 50)", () => {
  const real = STORIES.filter((s) => s.realNode);

  test("every container a real node runs is busybox running a script the shell accepts, or an image no registry has", () => {
    const offences: string[] = [];
    let scripts = 0;
    for (const story of real)
      for (const o of applied(story))
        for (const c of containersOf(o)) {
          const where = `${story.name}: ${o.kind} ${o.metadata?.name} container ${c.name}`;
          if (c.image !== BUSYBOX) {
            // An image pull that fails for real: no registry is reachable from a real node here.
            if (!String(c.image).startsWith("registry.example/")) offences.push(`${where}: image ${c.image}`);
            continue;
          }
          if (c.command?.[0] !== "sh" || c.command?.[1] !== "-c" || typeof c.command?.[2] !== "string") {
            offences.push(`${where}: no sh -c script`);
            continue;
          }
          scripts++;
          const check = spawnSync("sh", ["-n", "-c", c.command[2]], { encoding: "utf8" });
          if (check.status !== 0) offences.push(`${where}: ${check.stderr.trim()}`);
        }
    expect(offences).toEqual([]);
    expect(scripts).toBeGreaterThan(20);
  });

  test("a step changes what a container does only through its command: at that step's time, never by a name of its own", () => {
    // The windows a container reads are the story's step times in this telling.
    const story = real.find((s) => s.name === "readiness-only")!;
    const script = containersOf(applied(story)[1]!)[0]!.command[2] as string;
    const at = (i: number) => Math.floor((Date.UTC(2026, 5, 1, 9) + story.steps[i]!.t * 1000) / 1000);
    expect(script).toContain(`-ge ${at(1)}`);
    expect(script).toContain(`-lt ${at(2)}`);
  });
});
