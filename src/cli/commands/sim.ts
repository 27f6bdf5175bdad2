import { readFileSync, writeFileSync } from "node:fs";
import { defineCommand } from "citty";
import { createSystemClock } from "../../runtime/clock.ts";
import { createLogger } from "../../runtime/logger.ts";
import { onShutdownSignal } from "../../runtime/signals.ts";
import { playScenario } from "../../sim/scenario.ts";
import { readyNode } from "../../sim/scenarios/builders.ts";
import { demoScenario } from "../../sim/scenarios/demo.ts";
import { replayTimeline } from "../../sim/replay.ts";
import { startSimulator } from "../../sim/simulator.ts";
import { loadTimeline } from "../../sim/timeline.ts";
import type { TimingProfile } from "../../sim/controllers/index.ts";
import { parseTimingProfile } from "../../sim/controllers/timing-profiles.ts";
import { NS, STORIES, simStoryCluster, storyNamed } from "../../sim/stories/index.ts";

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
    replay: {
      type: "string",
      description:
        "Replay a recorded watch-event timeline directory (initial.json, events.jsonl), e.g. src/sim/testdata/kube-apiserver-v1.32/timelines/readiness_flap",
    },
    speed: { type: "string", description: "Replay speed factor (default 1: the recorded timing)" },
    controllers: {
      type: "boolean",
      default: true,
      description:
        "Run the controllers, the scheduler and the kubelets (three Ready nodes worker-1..3) on an empty cluster; --no-controllers serves objects only",
    },
    timing: {
      type: "string",
      description:
        'How long things take in the controllers: seed:N (a legal timing profile drawn from seed N) or a JSON file of durations in ms overriding the recorded timing (docs/simulator.md "Timing profiles")',
    },
    story: {
      type: "string",
      description: `Tell a failure story to the controllers: ${STORIES.map((s) => s.name).join(", ")}`,
    },
  },
  async run({ args }) {
    const logger = createLogger();
    const scenario = args.scenario ? SCENARIOS[args.scenario as keyof typeof SCENARIOS] : undefined;
    if (args.scenario && !scenario) {
      logger.error(`unknown scenario ${args.scenario}; known: ${Object.keys(SCENARIOS).join(", ")}`);
      process.exit(1);
    }
    const story = args.story ? storyNamed(args.story) : undefined;
    if (args.story && !story) {
      logger.error(`unknown story ${args.story}; known: ${STORIES.map((s) => s.name).join(", ")}`);
      process.exit(1);
    }
    let timing: TimingProfile | undefined;
    if (args.timing) {
      try {
        timing = parseTimingProfile(args.timing, (path) => readFileSync(path, "utf8"));
      } catch (error) {
        logger.error((error as Error).message);
        process.exit(1);
      }
    }
    const withControllers = (args.controllers || story !== undefined) && !scenario && !args.replay;
    const clock = createSystemClock();
    const sim = await startSimulator({
      port: args.port ? Number(args.port) : 0,
      ...(withControllers ? { controllers: clock } : {}),
      ...(withControllers && timing ? { timing } : {}),
    });
    if (withControllers) {
      // A story's young nodes joined a minute ago (young-node grace); otherwise the nodes are a day old.
      const age = story?.youngNodes ? 60_000 : 86_400_000;
      for (let i = 1; i <= (story?.nodes ?? 3); i++) sim.apply(readyNode(`worker-${i}`, Date.now() - age));
      if (story) sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
    }
    if (timing)
      logger.info(
        `timing: crash back-off ${timing.crashBackOffMs.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(", ")}; pod start ${(timing.startMs / 1000).toFixed(1)} s; EndpointSlice lag ${timing.endpointSliceLagMs} ms; node-monitor grace ${Math.round(timing.nodeMonitorGraceMs / 1000)} s`,
      );
    writeFileSync(args.kubeconfig, sim.kubeconfig({ clientCert: true }), { mode: 0o600 });
    logger.info(`simulator on ${sim.server.url}; kubeconfig written to ${args.kubeconfig}`);
    if (withControllers && !story)
      logger.info(
        "controllers on: nodes worker-1..3 are Ready; pods run (fates: image tag :crash, :oom, :missing, :unready, :fail, or the annotation sim.mon.io/fate); stop a node's kubelet with: kubectl annotate node worker-2 sim.mon.io/kubelet=stopped",
      );
    onShutdownSignal(async () => {
      await sim.stop();
      process.exit(0);
    });
    if (args.replay) {
      const speed = args.speed ? Number(args.speed) : 1;
      if (!(speed > 0)) {
        logger.error(`--speed must be a positive number (got ${args.speed})`);
        process.exit(1);
      }
      let timeline: ReturnType<typeof loadTimeline>;
      try {
        timeline = loadTimeline(args.replay);
      } catch (error) {
        logger.error((error as Error).message);
        process.exit(1);
      }
      const replay = replayTimeline(sim, timeline, clock, { speed });
      logger.info(
        `replaying ${timeline.name}: ${timeline.initial.length} objects, ${timeline.events.length} events over ${Math.round(timeline.lengthSeconds / speed)} s`,
      );
      await replay.done;
      logger.info("replay finished; still serving");
    } else if (story) {
      logger.info(`story ${story.name}: ${story.description} (${Math.round(story.lengthSeconds / 60)} min)`);
      const schedule = { zeroMs: Date.now(), seconds: story.steps.map((step) => step.t) };
      await playScenario(
        {
          name: story.name,
          description: story.description,
          setup: () => {},
          steps: story.steps.map((step) => ({
            atMs: step.t * 1000,
            say: step.say,
            run: (s) => step.run(simStoryCluster(s, schedule)),
          })),
        },
        sim,
        {
          now: () => Date.now(),
          sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
          onStep: (say) => logger.info(`story: ${say}`),
        },
      );
      logger.info("story told; still serving");
    } else if (scenario) {
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
