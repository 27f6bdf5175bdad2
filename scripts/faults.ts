/**
 * The control plane's own faults (issue 53, item 3; docs/leadership.md "The control plane's own faults"): each
 * story of src/sim/stories/faults.ts told on a real v1.32 control plane of its own, whose kube-apiserver, etcd or
 * kube-controller-manager is killed and started again, with two Pro `mon run` processes watching. Prints, per
 * story, what mon told with its time from the story's start and from the fault, and whether that is what it
 * should tell; exits 1 when a story differs or a fault invariant broke. About 10 minutes of node aging, then each
 * story's length (6–10 minutes). Usage: bun scripts/faults.ts [--only story,story] [--json FILE]
 */
import { writeFileSync } from "node:fs";
import { FAULT_STORIES } from "../src/sim/stories/faults.ts";
import { faultStoryLines, tellFaultStories } from "../src/testing/fault-stories.ts";

const flag = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const only = flag("only")?.split(",");
const stories = FAULT_STORIES.filter((s) => !only || only.includes(s.name));
const began = Date.now();
const results = await tellFaultStories(stories, (line) =>
  console.log(`+${Math.round((Date.now() - began) / 1000)} s ${line}`),
);
let failed = 0;
for (const r of results) {
  const [head, ...rest] = faultStoryLines(r);
  if (!head?.startsWith("as expected")) failed += 1;
  console.log(`\n${head}`);
  for (const line of rest) console.log(line);
  if (!r.judgement.same)
    console.log(`  expected: ${stories.find((s) => s.name === r.story)?.threads.join(" | ") || "nothing"}`);
}
const json = flag("json");
if (json) writeFileSync(json, JSON.stringify(results, null, 2));
console.log(`\n${results.length - failed} of ${results.length} fault stories as expected`);
process.exit(failed ? 1 : 0);
