import { describe, expect, test } from "bun:test";
import { mergeOverlays, overlayProblems } from "./overlay.ts";

/** The overlay's own rules (spec 2.5): what it may not set, literal values, and the merge order. */
describe("MonConfig overlays", () => {
  const source = (name: string, spec: Record<string, unknown>) => ({ namespace: "mon", name, spec });

  test("objects merge key by key, lists and scalars replace, a later name wins", () => {
    const data = { app: { clusterName: "prod", logFormatter: "text" }, namespaces: ["a", "b"], resyncSeconds: 300 };
    const merged = mergeOverlays(data, [
      source("b", { resyncSeconds: 60, app: { logFormatter: "json" } }),
      source("a", { resyncSeconds: 30, namespaces: ["c"] }),
    ]);
    expect(merged).toEqual({
      app: { clusterName: "prod", logFormatter: "json" },
      namespaces: ["c"],
      resyncSeconds: 60,
    });
    expect(data.namespaces).toEqual(["a", "b"]);
  });

  test("forbidden keys and ${...} references are errors naming the object and the key", () => {
    const problems = overlayProblems([
      source("x", { alert: { slack: {} }, heartbeatMonitor: { url: "https://h", interval: 60 }, healthCheck: {} }),
      source("y", { kubelet: { insecureSkipVerify: true }, app: { clusterName: "${HOSTNAME}" } }),
    ]);
    expect(problems.map((p) => [p.file, p.key])).toEqual([
      ["MonConfig mon/x", "alert"],
      ["MonConfig mon/x", "healthCheck"],
      ["MonConfig mon/x", "heartbeatMonitor.url"],
      ["MonConfig mon/y", "kubelet.insecureSkipVerify"],
      ["MonConfig mon/y", "app.clusterName"],
    ]);
    expect(problems.every((p) => p.level === "error" && p.rule === "overlay_forbidden")).toBe(true);
    expect(
      overlayProblems([source("z", { heartbeatMonitor: { interval: 60 }, silences: [{ namespaces: ["a"] }] })]),
    ).toEqual([]);
  });
});
