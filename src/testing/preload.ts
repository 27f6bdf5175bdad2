import { afterAll } from "bun:test";
import { QUICK_TIMING } from "../sim/controllers/index.ts";
import { sayAgain } from "./at-exit.ts";
import { realKube, realKubeMissing } from "./real-kube.ts";
import { realNode, realNodeMissing } from "./real-node.ts";
import { prepareStoryNodes, storiesWithStandInNodes } from "./real-stories.ts";

/**
 * Loaded before the tests (bunfig.toml). With `MON_REAL_KUBE_EARLY=1` (set by `npm test`) and the real control
 * plane at hand, it starts that control plane and registers the nodes of the stories it is told
 * (src/e2e/real-stories.test.ts) as the suite begins: a story's nodes must be older than mon's young-node grace
 * (10 minutes) when it starts, and a real API server dates a node from its creation. So does the real node
 * (src/testing/real-node.ts), joined as soon as the control plane is up. A failure here is not lost: the test
 * awaits the same start and reports it. At the end of the suite it says again what long tests asked to
 * (src/testing/at-exit.ts).
 */
afterAll(sayAgain);
if (process.env.MON_REAL_KUBE_EARLY === "1" && realKubeMissing() === undefined) {
  prepareStoryNodes(realKube(), storiesWithStandInNodes(), QUICK_TIMING).catch(() => {});
  if (realNodeMissing() === undefined) realNode().catch(() => {});
}
