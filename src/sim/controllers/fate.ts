import type { KubeObject } from "../store.ts";

/**
 * What the simulated kubelet makes of a pod (docs/simulator.md "Fates"):
 * - `run`: starts and stays up (Ready after its readiness probe, if it has one);
 * - `crash`: exits with code 1 a second after each start, so it crash-loops with the kubelet's back-off;
 * - `oom`: the same, killed by the OOM killer (exit code 137, OOMKilled);
 * - `image-missing`: its image cannot be pulled (ErrImagePull, then ImagePullBackOff);
 * - `unready`: runs, but its readiness probe fails (Ready=False after `failureThreshold` failures);
 * - `liveness`: runs, but its liveness probe fails: killed after `failureThreshold` failures (exit 137) and
 *   restarted with the crash back-off, as the kubelet does;
 * - `fail` / `complete`: runs a few seconds and exits 1 / 0 (a Job's pods complete unless told otherwise).
 */
export type Fate = "run" | "crash" | "oom" | "image-missing" | "unready" | "liveness" | "fail" | "complete";

/** The pod (or pod template) annotation that sets a fate: `kubectl annotate pod web-x sim.mon.io/fate=crash`. */
export const FATE_ANNOTATION = "sim.mon.io/fate";
/** The pod annotation holding what a failing container prints (served as its log, previous instance). */
export const OUTPUT_ANNOTATION = "sim.mon.io/output";

const FATES: readonly Fate[] = ["run", "crash", "oom", "image-missing", "unready", "liveness", "fail", "complete"];
/** Image tags that choose a fate, so `kubectl create deployment api --image=registry.example/api:crash` works. */
const TAGS: Record<string, Fate> = {
  crash: "crash",
  oom: "oom",
  missing: "image-missing",
  unready: "unready",
  liveness: "liveness",
  fail: "fail",
};

/** The pod's fate: its annotation, else its first container's image tag, else `run` (`complete` for run-once pods). */
export function fateOf(pod: KubeObject): Fate {
  const annotated = pod.metadata?.annotations?.[FATE_ANNOTATION];
  if (FATES.includes(annotated)) return annotated;
  const tag = /:([a-z-]+)$/.exec(String(pod.spec?.containers?.[0]?.image ?? ""))?.[1];
  if (tag && TAGS[tag]) return TAGS[tag];
  return (pod.spec?.restartPolicy ?? "Always") === "Always" ? "run" : "complete";
}

/** The pod (or pod template) annotation that makes its init containers fail: `sim.mon.io/init-fate=crash`. */
export const INIT_FATE_ANNOTATION = "sim.mon.io/init-fate";

/**
 * What the simulated kubelet makes of a pod's init containers: `crash` — the first init container exits 1 on
 * every start (Init:CrashLoopBackOff); `complete` — each exits 0 after `initRunMs`. Set by the annotation
 * `sim.mon.io/init-fate`, else an init container's image tag `:crash` or `:fail`.
 */
export function initFateOf(pod: KubeObject): "crash" | "complete" {
  const annotated = pod.metadata?.annotations?.[INIT_FATE_ANNOTATION];
  if (annotated === "crash" || annotated === "complete") return annotated;
  const failing = (pod.spec?.initContainers ?? []).some((c: KubeObject) =>
    /:(crash|fail)$/.test(String(c.image ?? "")),
  );
  return failing ? "crash" : "complete";
}

/** What a container of this fate prints before it exits (the annotation's text, else a line in a real program's words). */
export function outputOf(pod: KubeObject, fate: Fate): string {
  const given = pod.metadata?.annotations?.[OUTPUT_ANNOTATION];
  if (typeof given === "string") return given;
  if (fate === "oom" || fate === "liveness") return "";
  if (fate === "complete") return "done\n";
  return "Error: the process exited with status 1\n";
}
