import type { Finding } from "../../model/finding.ts";
import type { WaitingState } from "../../model/kube.ts";
import { finding } from "../build.ts";
import { CONFIG_RETRY_MS, configFixedAt } from "../config-fixed.ts";
import type { ContainerContext } from "./containers.ts";

/** A rule for one waiting reason: its finding, or undefined when it does not apply now. */
type WaitingRule = (c: ContainerContext, waiting: WaitingState) => Finding | undefined;

const imagePull: WaitingRule = ({ ctx, s, base, started }, waiting) =>
  finding({
    ...base,
    part: `${s.name}/${s.image}`,
    reason: "ImagePullBackOff",
    summary: `pod ${ctx.name} cannot pull image ${s.image}: ${waiting.message ?? waiting.reason}`,
    evidence: [
      ["container", s.name],
      ["image", s.image],
      ["state", waiting.reason],
      ["message", waiting.message],
      ["pull secrets", (ctx.pod.spec?.imagePullSecrets ?? []).map((x) => x.name).join(", ") || "none"],
      ["node", ctx.nodeName],
    ],
    since: started,
  });

const imageUnavailable: WaitingRule = ({ ctx, s, base, started }, waiting) =>
  finding({
    ...base,
    reason: "ImageUnavailable",
    summary: `container ${s.name} of pod ${ctx.name}: ${waiting.reason} for ${s.image}${waiting.message ? `: ${waiting.message}` : ""}`,
    evidence: [
      ["container", s.name],
      ["image", s.image],
      ["state", waiting.reason],
      ["message", waiting.message],
      ["node", ctx.nodeName],
    ],
    since: started,
  });

/**
 * The waiting reasons of a container (failure-catalogue 1.A) and the rule each maps to: image pulls, an image
 * that cannot be used, a configuration the kubelet cannot build, a container the runtime cannot create.
 * CrashLoopBackOff and RunContainerError are told by the crash and run-error rules, which read the last
 * termination too.
 */
const WAITING_RULES: Readonly<Record<string, WaitingRule>> = {
  ImagePullBackOff: imagePull,
  ErrImagePull: imagePull,
  InvalidImageName: ({ ctx, s, base, started }, waiting) =>
    finding({
      ...base,
      reason: "InvalidImageName",
      summary: `container ${s.name} of pod ${ctx.name}: image reference "${s.image}" cannot be parsed`,
      evidence: [
        ["container", s.name],
        ["image", s.image],
        ["message", waiting.message],
      ],
      since: started,
    }),
  ErrImageNeverPull: imageUnavailable,
  ImageInspectError: imageUnavailable,
  RegistryUnavailable: imageUnavailable,
  SignatureValidationFailed: imageUnavailable,
  CreateContainerConfigError: ({ ctx, s, base, started }, waiting) => {
    // The object the kubelet could not find exists now: its next retry starts the container (recovery is quiet).
    const fixedAt = configFixedAt(ctx.pod, s, ctx.inventory);
    if (fixedAt !== undefined && ctx.time.before(fixedAt + CONFIG_RETRY_MS)) return undefined;
    // With Secrets not watched, mon cannot tell whether a named Secret exists: it says so (spec 2.1 watch.secrets).
    const unverifiable =
      /secret/i.test(waiting.message ?? "") && !ctx.watchesSecrets()
        ? "cannot verify: Secrets are not watched (watch.secrets is false)"
        : undefined;
    return finding({
      ...base,
      reason: "CreateContainerConfigError",
      summary: `container ${s.name} of pod ${ctx.name} cannot be configured: ${waiting.message ?? "configuration error"}`,
      evidence: [
        ["container", s.name],
        ["message", waiting.message],
        ["image", s.image],
        ["secret check", unverifiable],
      ],
      since: started,
    });
  },
  CreateContainerError: ({ ctx, s, base, started }, waiting) =>
    finding({
      ...base,
      reason: "CreateContainerError",
      summary: `container ${s.name} of pod ${ctx.name}: the runtime on ${ctx.nodeName ?? "its node"} could not create it: ${waiting.message ?? ""}`,
      evidence: [
        ["container", s.name],
        ["message", waiting.message],
        ["node", ctx.nodeName],
      ],
      since: started,
    }),
};

/** The finding of a container's waiting reason (WAITING_RULES), undefined for another reason or none. */
export function waitingReason(c: ContainerContext): Finding | undefined {
  const reason = c.waiting?.reason;
  const rule = reason !== undefined && Object.hasOwn(WAITING_RULES, reason) ? WAITING_RULES[reason] : undefined;
  return rule && c.waiting ? rule(c, c.waiting) : undefined;
}
