import { expect } from "bun:test";
import { FAULT_STORIES } from "../sim/stories/faults.ts";
import { sayAtExit, sayingFailure } from "../testing/at-exit.ts";
import { faultStoryLines as lines, tellFaultStories } from "../testing/fault-stories.ts";
import { realKubeTest } from "../testing/real-kube.ts";

/**
 * The control plane's own faults (issue 53 item 3; docs/leadership.md "The control plane's own faults"): each
 * story of src/sim/stories/faults.ts told on a real v1.32 control plane of its own — kube-apiserver killed
 * mid-incident, etcd killed on a quiet cluster, the API server restarted while a node is lost, changes right
 * before an outage, the controller manager restarted — with two Pro `mon run` replicas watching. Judged by the
 * stories' invariants, plus: no replica exits because the control plane failed, and nothing announced is left
 * open. `npm test` runs this file in a process of its own beside the rest of the suite (scripts/test.ts): its
 * nodes' aging and its stories wait on real time, not on the machine.
 */
const faultTest = realKubeTest("the control plane's own faults (issue 53)");

faultTest(
  "every fault story tells on the real control plane what it should: the outage once, nothing blamed on the nodes, no replica exits, nothing left open",
  () =>
    sayingFailure("the fault stories failed", async () => {
      const began = Date.now();
      const results = await tellFaultStories(FAULT_STORIES, (line) =>
        console.log(`faults +${Math.round((Date.now() - began) / 1000)} s: ${line}`),
      );
      console.log(`fault stories:\n${results.flatMap(lines).join("\n")}`);
      const wrong = results.filter((r) => !r.judgement.same || r.judgement.violations.length > 0 || r.broken.length);
      if (wrong.length) sayAtExit("the fault stories that went wrong", wrong.flatMap(lines).join("\n"));
      expect(results.map((r) => r.story)).toEqual(FAULT_STORIES.map((s) => s.name));
      expect(wrong.flatMap(lines)).toEqual([]);
    }),
  80 * 60_000,
);
