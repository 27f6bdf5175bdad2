import { describe, expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Inventory } from "../../kube/inventory.ts";
import { STORIES } from "../../sim/stories/index.ts";
import { loadTimeline, type Timeline, TIMELINES_DIR } from "../../sim/timeline.ts";
import { parseConfig } from "../../testing/config.ts";
import { recordedObjects } from "../../testing/recorded-objects.ts";
import { storyTimeline } from "../../testing/story-timeline.ts";
import { throughProtobuf } from "../../testing/through-protobuf.ts";
import { type Replayed, replay } from "./replay.ts";

/**
 * Issue 42: the Inventory keeps only each kind's declared fields (model/shapes.ts). Proof that nothing mon says
 * depends on a field it drops: every recorded v1.32 timeline, every story of the catalogue and every object the
 * recorded exchanges hold are run through mon's whole engine twice — once keeping whole objects, once
 * projected — and every message (text included) and every object's explain trace must be the same. Issue 55:
 * a third time with every object as the protobuf decoder builds it (encoded as kube-apiserver serves it, decoded
 * straight into the shape), which must tell the same again.
 */
const loaded = parseConfig(
  "alert:\n  webhook:\n    url: http://127.0.0.1:9/hook\nwatch:\n  secrets: true\n",
  "config.yaml",
  {},
);

/** How many objects the runs read, and how many of those through protobuf (the rest are custom resources). */
const objects = { all: 0, decoded: 0 };

async function both(
  timeline: Timeline,
): Promise<{ whole: Replayed; projected: Replayed; protobuf: Replayed; keys: string[] }> {
  const whole = await replay(timeline, loaded, "pro", new Inventory({ whole: true }));
  const projected = await replay(timeline, loaded, "pro", new Inventory());
  const decode = (o: Timeline["initial"][number]) => {
    const read = throughProtobuf(o);
    objects.all += 1;
    if (read !== o) objects.decoded += 1;
    return read;
  };
  const decoded = {
    ...timeline,
    initial: timeline.initial.map(decode),
    events: timeline.events.map((e) => ({ ...e, object: decode(e.object) })),
  };
  const protobuf = await replay(decoded, loaded, "pro", new Inventory());
  const keys = [
    ...new Set(
      [...timeline.initial, ...timeline.events.map((e) => e.object)].map(
        (o) => `${o.kind}/${o.metadata?.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata?.name}`,
      ),
    ),
  ];
  return { whole, projected, protobuf, keys };
}

function expectSame({ whole, projected, protobuf, keys }: Awaited<ReturnType<typeof both>>): void {
  expect(projected.lines).toEqual(whole.lines);
  expect(protobuf.lines).toEqual(whole.lines);
  for (const key of keys) {
    expect({ key, trace: projected.traces.of(key) }).toEqual({ key, trace: whole.traces.of(key) });
    expect({ key, trace: protobuf.traces.of(key) }).toEqual({ key, trace: whole.traces.of(key) });
  }
}

describe("the declared projection, read from JSON or protobuf, changes nothing mon tells (issues 42, 55)", () => {
  let told = 0;
  const names = readdirSync(TIMELINES_DIR).filter((n) => statSync(join(TIMELINES_DIR, n)).isDirectory());

  test.each(names)("recorded v1.32 timeline %s: the same messages and explain traces", async (name) => {
    const result = await both(loadTimeline(join(TIMELINES_DIR, name)));
    told += result.whole.lines.length;
    expectSame(result);
  });

  test.each(STORIES.map((s) => [s.name, s] as const))(
    "story %s: the same messages and explain traces",
    async (_name, story) => {
      const result = await both(await storyTimeline(story));
      told += result.whole.lines.length;
      expectSame(result);
    },
    120_000,
  );

  test("every object the recorded exchanges hold, at once: the same messages and explain traces", async () => {
    const objects = recordedObjects();
    // Every declared kind the recordings serve is among them, so none is proven by its absence.
    const kinds = new Set(objects.map((o) => o.kind));
    for (const kind of ["Pod", "Node", "Deployment", "ReplicaSet", "Event", "EndpointSlice", "Lease"])
      expect(kinds).toContain(kind);
    const startMs = Math.max(...objects.map((o) => Date.parse(o.metadata?.creationTimestamp ?? "") || 0));
    const result = await both({
      name: "exchanges",
      initial: objects,
      events: [],
      startMs,
      lengthSeconds: 0,
      secretsRecorded: objects.some((o) => o.kind === "Secret"),
    });
    expectSame(result);
  });

  test("the runs above told something: the comparison is not between two silences", () => {
    expect(told).toBeGreaterThan(50);
    // Nearly every object was read through protobuf: the third run is not the second again.
    expect(objects.decoded).toBeGreaterThan(0.9 * objects.all);
  });
});
