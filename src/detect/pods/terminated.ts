import type { Finding } from "../../model/finding.ts";
import { finding } from "../build.ts";
import { parseTime } from "../evidence.ts";
import { exitClass } from "../exit-codes.ts";
import type { ContainerContext } from "./containers.ts";
import { describeExit, lastLine, RUN_ERRORS, willNotRestart } from "./context.ts";

/** A container that could not start: RunContainerError while waiting, or a StartError / ContainerCannotRun exit. */
export function runError({
  ctx,
  s,
  waiting,
  terminated,
  last,
  base,
  common,
  started,
}: ContainerContext): Finding | undefined {
  const failed =
    waiting?.reason === "RunContainerError"
      ? last
      : terminated?.reason && RUN_ERRORS.has(terminated.reason)
        ? terminated
        : undefined;
  if (waiting?.reason !== "RunContainerError" && !failed) return undefined;
  const message = failed?.message ?? waiting?.message ?? "";
  return finding({
    ...base,
    reason: "RunContainerError",
    summary: `container ${s.name} of pod ${ctx.name} could not start: ${message}`,
    evidence: [...common, ["exit code", failed ? describeExit(failed) : undefined], ["message", message]],
    since: started,
  });
}

/** A container the runtime lost (its node restarted or was lost). */
export function statusUnknown({ ctx, s, terminated, base, common, started }: ContainerContext): Finding | undefined {
  if (terminated?.reason !== "ContainerStatusUnknown") return undefined;
  return finding({
    ...base,
    reason: "ContainerStatusUnknown",
    summary: `container ${s.name} of pod ${ctx.name}: the runtime lost the container (node ${ctx.nodeName ?? "?"} restarted or was lost)`,
    evidence: [...common, ["message", terminated.message]],
    since: parseTime(terminated.finishedAt, started),
  });
}

/** A container that exited non-zero and will not be restarted (restartPolicy Never, Job pods). */
export function exitedNonZero({ ctx, s, terminated, base, common, started }: ContainerContext): Finding | undefined {
  if (!terminated || terminated.exitCode === 0 || !willNotRestart(ctx.pod)) return undefined;
  return finding({
    ...base,
    reason: "ContainerExitedNonZero",
    summary: `container ${s.name} of pod ${ctx.name} exited ${describeExit(terminated)}, ${exitClass(terminated.exitCode)}${terminated.message ? `: "${lastLine(terminated.message)}"` : ""}`,
    evidence: [
      ...common,
      ["exit code", describeExit(terminated)],
      ["exit class", exitClass(terminated.exitCode)],
      ["last output", terminated.message ? lastLine(terminated.message) : undefined],
      ["finished", terminated.finishedAt],
    ],
    since: parseTime(terminated.finishedAt, started),
  });
}
