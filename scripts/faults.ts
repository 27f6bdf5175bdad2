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
import { tellFaultStories } from "../src/testing/fault-stories.ts";

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
  const ok = r.judgement.same && r.judgement.violations.length === 0 && r.broken.length === 0;
  if (!ok) failed += 1;
  console.log(`\n${ok ? "as expected" : "DIFFERS"} ${r.story} (${Math.round(r.seconds)} s)`);
  for (const f of r.faults)
    console.log(`  fault: ${f.say} at ${f.at.toFixed(1)} s, running again at ${f.back.toFixed(1)} s`);
  const fault = r.faults[0]?.at;
  for (const m of r.told)
    console.log(
      `  ${m.t.toFixed(1)} s${fault !== undefined ? ` (fault ${m.t - fault >= 0 ? "+" : ""}${(m.t - fault).toFixed(1)} s)` : ""} ${m.action} ${m.incidentId}: ${m.text.split("\n")[0]}`,
    );
  console.log(`  told: ${r.judgement.conversation.join(" | ") || "nothing"}`);
  if (!r.judgement.same)
    console.log(`  expected: ${stories.find((s) => s.name === r.story)?.threads.join(" | ") || "nothing"}`);
  for (const v of [...r.judgement.violations, ...r.broken]) console.log(`  broken: ${v}`);
}
const json = flag("json");
if (json) writeFileSync(json, JSON.stringify(results, null, 2));
console.log(`\n${results.length - failed} of ${results.length} fault stories as expected`);
process.exit(failed ? 1 : 0);
