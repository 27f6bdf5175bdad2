/**
 * The story catalogue on a real Kubernetes v1.32 control plane beside the simulator (issue 40;
 * docs/alert-quality.md "On a real control plane"), for `bun scripts/quality.ts --real`.
 */
import { QUICK_TIMING } from "../src/sim/controllers/index.ts";
import { STORIES } from "../src/sim/stories/index.ts";
import { quickStory } from "../src/sim/stories/story.ts";
import { realKube, realKubeMissing } from "../src/testing/real-kube.ts";
import { realNode, realNodeMissing } from "../src/testing/real-node.ts";
import {
  prepareStoryNodes,
  type RealStoryResult,
  tellStoriesOnRealKube,
  tellStoriesOnRealNode,
} from "../src/testing/real-stories.ts";
import { TIMED_EXPECTATIONS } from "../src/testing/timing/expectations.ts";
import { describeFailure, QUICK_STORY_TIMING, quickExpectation, runQuick } from "../src/testing/timing/run.ts";

/**
 * Tells every catalogue story (or those named in `only`) at its quick schedule, first on the simulator's
 * controllers under QUICK_TIMING (fake clock, a story after the other), then all at once on the real control
 * plane with the kubelet stand-in (real time, about 25 minutes: the stories' nodes must first age past mon's
 * 10-minute young-node grace), and — when the real node can run here (root, containerd; src/testing/real-node.ts)
 * — those written for real pods on the real node after them (issue 50; about 30 minutes more). Returns a Markdown table — a row per story: what it should tell, whether the
 * simulator, the real control plane and the real node told it with no invariant broken, and how long the real
 * runs took — and
 * a summary line with mon's notices about its own sight, stalled watches and refused writes. `ok` is false when
 * anything differs. Throws when no real control plane is at hand (src/testing/real-kube.ts).
 */
export async function realQualityTable(only?: readonly string[]): Promise<{ table: string; ok: boolean }> {
  const missing = realKubeMissing();
  if (missing) throw new Error(`no real control plane: ${missing}`);
  const stories = STORIES.filter((s) => !only || only.includes(s.name));
  const expectations = stories.map((story) => {
    const expected = TIMED_EXPECTATIONS.find((e) => e.story === story.name);
    if (!expected) throw new Error(`no expectation for story ${story.name}`);
    return expected;
  });
  const nodes = prepareStoryNodes(realKube(), stories, QUICK_TIMING);
  const onSimulator = new Map<string, boolean>();
  for (const expected of expectations) {
    const { told, judgement, expected: want } = await runQuick(expected);
    const same = judgement.same && judgement.violations.length === 0;
    onSimulator.set(expected.story, same);
    if (!same) console.log(describeFailure(want, QUICK_STORY_TIMING, told, judgement));
  }
  const specs = stories.map((story, i) => ({
    story: quickStory(story),
    expected: quickExpectation(expectations[i]!, story),
  }));
  const started = performance.now();
  // The stories written for real pods are told on the real node too, after them, when it can run here.
  const nodeMissing = realNodeMissing();
  const onNode = specs.filter((s) => s.story.realNode);
  // One after the other: told at once, each story's twin would be in the other daemon's view (the same error in
  // two namespaces is one error in two workloads; twins due in one pass are one roll-up).
  const run = await tellStoriesOnRealKube(await nodes, specs);
  const nodeRun =
    nodeMissing || onNode.length === 0 ? undefined : await realNode().then((n) => tellStoriesOnRealNode(n, onNode));
  if (nodeMissing) console.log(`skipped: the real node: ${nodeMissing}`);
  const lines = [
    "| story | what is told | simulator | real control plane, stand-in nodes | real node | real run (s) |",
    "|---|---|---|---|---|---|",
  ];
  const judged = (r: RealStoryResult) =>
    r.judgement.same && r.judgement.violations.length === 0 && r.failures.length === 0;
  let ok =
    run.unplaced.length === 0 &&
    run.stalls === 0 &&
    run.standInFailures.length === 0 &&
    (nodeRun?.unplaced.length ?? 0) === 0 &&
    (nodeRun?.stalls ?? 0) === 0;
  const explain = (where: string, r: RealStoryResult) => {
    console.log(`${r.story} on ${where}: ${r.judgement.conversation.join(" | ") || "nothing"}`);
    for (const v of [...r.judgement.violations, ...r.failures]) console.log(`  ${v}`);
    for (const m of r.told) console.log(`  ${m.t.toFixed(1)} s ${m.action} ${m.incidentId} ${m.reason}`);
  };
  for (const r of run.results) {
    const real = judged(r);
    const sim = onSimulator.get(r.story) === true;
    const onRealNode = nodeRun?.results.find((n) => n.story === r.story);
    const node = onRealNode ? judged(onRealNode) : undefined;
    ok &&= real && sim && node !== false;
    if (!real) explain("the real control plane", r);
    if (onRealNode && !node) explain("the real node", onRealNode);
    // As the simulator names them (the real run's expectation names the story's own namespace and nodes).
    const threads = specs.find((s) => s.story.name === r.story)!.expected.threads;
    const told = threads.length ? threads.join("; ") : "nothing";
    const word = (v: boolean | undefined) => (v === undefined ? "—" : v ? "as expected" : "DIFFERS");
    lines.push(
      `| ${r.story} | ${told} | ${word(sim)} | ${word(real)} | ${word(node)} | ${Math.round(r.seconds)}${onRealNode ? ` / ${Math.round(onRealNode.seconds)}` : ""} |`,
    );
  }
  const asExpected = run.results.filter((r) => r.judgement.same && r.judgement.violations.length === 0).length;
  const onNodeAsExpected = nodeRun?.results.filter(judged).length ?? 0;
  const summary =
    `${asExpected} of ${run.results.length} stories as expected on the real control plane with stand-in nodes, side by side; ` +
    `${nodeRun ? `${onNodeAsExpected} of ${nodeRun.results.length} written for real pods as expected on the real node` : "the real node not at hand"} ` +
    `(${Math.round((performance.now() - started) / 60_000)} min); mon's notices about its own sight: ` +
    `${run.unplaced.length + (nodeRun?.unplaced.length ?? 0)}; watches found stalled: ${run.stalls + (nodeRun?.stalls ?? 0)}; writes refused: ` +
    `${[...run.results, ...(nodeRun?.results ?? [])].reduce((n, r) => n + r.failures.length, 0) + run.standInFailures.length}. ` +
    "Real run: seconds on the control plane with stand-in nodes / on the real node.";
  return { table: `${lines.join("\n")}\n\n${summary}`, ok };
}
