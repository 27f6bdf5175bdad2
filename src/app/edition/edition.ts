import type { Config } from "../../config/schema.ts";
import type { PreparedRules } from "../../incident/suppress.ts";
import type { Edition } from "../../model/edition.ts";
import type { Message } from "../../model/message.ts";
import { renderNotice } from "../../notify/notice.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import { rulesFor } from "../pass/rules.ts";

/** The components that follow the edition: each is told after a switch (probes, heartbeat, state, …). */
export type EditionListener = (edition: Edition) => void;

/**
 * The edition while running (docs/license.md "Edition changes"): what the license decided, the rules of that
 * edition, and mon's own notices (license changes, the upgrade notice), held until the first sync and then sent
 * in order. A switch is made only after the notice announcing it was routed, so "Pro disabled" reaches every
 * provider Pro had.
 */
export interface EditionControl {
  current(): Edition;
  rules(): PreparedRules;
  /** A notice sentence from the license (`License`) or the update check (`Upgrade`). */
  notice(sentence: string, reason?: "License" | "Upgrade"): void;
  /** The license changed the edition. */
  change(next: Edition): void;
  /** Connects the outgoing stage once it exists; notices wait until `ready()`. */
  attach(outgoing: { notice(message: Message, now: number): void; settled(): Promise<void> }): void;
  /** The first sync: held notices go out, and from now on as they come. */
  ready(): void;
  /** Called after a component list change (who receives what): listeners run in the order added. */
  onSwitch(listener: EditionListener): void;
}

/** Creates the edition control for `initial`; `inactive` reads the providers Community does not deliver to. */
export function createEditionControl(options: {
  initial: Edition;
  config: Config;
  cluster: string;
  clock: Clock;
  logger: Logger;
  inactive: () => readonly string[];
  /** Where each silence rule is written (`config.yaml:12`), for `mon explain`. */
  silenceSources?: readonly string[];
}): EditionControl {
  const { config, clock, logger } = options;
  let edition = options.initial;
  // Computed when first asked for (the router that knows the inactive providers is built after this).
  let rules: PreparedRules | undefined;
  let outgoing: Parameters<EditionControl["attach"]>[0] | undefined;
  let ready = false;
  let serial = 0;
  const held: { sentence: string; reason: "License" | "Upgrade" }[] = [];
  const listeners: EditionListener[] = [];
  const flush = () => {
    if (!ready || !outgoing) return;
    for (const n of held.splice(0))
      outgoing.notice(renderNotice(n.sentence, options.cluster, clock.now(), ++serial, n.reason), clock.now());
  };
  const apply = (next: Edition) => {
    if (next === edition) return;
    edition = next;
    rules = undefined;
    logger.info(
      next === "pro"
        ? "edition: Pro — Pro settings take effect now"
        : "edition: Community — one provider, state in memory, Pro settings have no effect until Pro returns",
    );
    for (const listener of listeners) listener(edition);
    flush();
  };
  return {
    current: () => edition,
    rules: () => (rules ??= rulesFor(config, edition, options.inactive(), options.silenceSources)),
    notice(sentence, reason = "License") {
      held.push({ sentence, reason });
      flush();
    },
    change(next) {
      if (next === edition) return;
      flush();
      if (outgoing) void outgoing.settled().then(() => apply(next));
      else apply(next);
    },
    attach(stage) {
      outgoing = stage;
    },
    ready() {
      ready = true;
      flush();
    },
    onSwitch: (listener) => void listeners.push(listener),
  };
}
