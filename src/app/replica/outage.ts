import type { LoadedConfig } from "../../config/load.ts";
import type { Finding } from "../../model/finding.ts";
import type { Message } from "../../model/message.ts";
import { apiUnreachable } from "../../detect/control-plane.ts";
import { nextStepsFor } from "../../detect/next-steps.ts";
import type { HealthRegistry } from "../../health/registry.ts";
import { type Suppression, suppressionOf } from "../../incident/suppress.ts";
import { readApiServerReadiness } from "../../kube/apiserver-readyz.ts";
import type { KubeConnection } from "../../kube/connection.ts";
import type { Elector } from "../../leader/elector.ts";
import type { Metrics } from "../../metrics.ts";
import type { Edition } from "../../model/edition.ts";
import type { InventoryView } from "../../model/inventory.ts";
import { renderUnreachable, type UnreachableThread } from "../../notify/unreachable.ts";
import type { Cancel, Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import { createDeliveryStore } from "../../state/delivery-store.ts";
import { openStateStore } from "../../state/store.ts";
import { type DeliverySide, openDeliverySide } from "../delivery/stages.ts";
import type { Prepared } from "../delivery/prepare.ts";
import { rulesFor } from "../pass/rules.ts";

/** How often a deposed replica looks whether it should tell (or resolve) an API server outage, ms. */
const CHECK_MS = 5_000;
/** How long the API server's own /readyz may take to answer the one question asked before the announce, ms. */
const READYZ_MS = 3_000;

/** Who tells the providers that the API server cannot be reached while no replica can hold the state lock. */
export interface OutageVoice {
  /**
   * This replica lost the state lock (issue 53): until it leads again it watches the election's answers, and
   * tells an outage when it held the lock last. `edition` is the edition its work ran in (who receives what).
   */
  deposed(edition: Edition): void;
  /** Looks now (a timer does every 5 s while deposed). */
  check(): Promise<void>;
  /**
   * This replica leads again, or stops (`stopped`): an outage told and not resolved is resolved now — as over,
   * or as mon stopping while it lasts — and delivered for up to `drainMs`.
   */
  close(drainMs: number, stopped?: boolean): Promise<void>;
}

/**
 * The HA answer to "who tells that the API server is down while nobody can hold the Lease" (issue 53;
 * docs/leadership.md): the Lease lives in the API server, so while no replica reaches it none can lead, and a
 * replica that reaches it cannot truly say it is down. Only the replica that held the Lease last — its term
 * the last one it held and the Lease it last read still its own — tells, once every election round has gone
 * unanswered (refused, hung, 5xx, 429) for a minute (the finding's hold): one paging thread keyed by cluster and term
 * (`api-unreachable@<term>`), never one per replica; a standby never speaks. It resolves the thread itself when
 * a round is answered again (or when it leads again, or stops). It delivers nothing else while deposed, so a
 * new leader's messages are never doubled; its own delivery is in memory (the state store is the leader's).
 * The configuration's scope and silences apply to the `APIServerUnreachable` finding as to any other.
 */
export function createOutageVoice(deps: {
  elector: Pick<Elector, "status" | "lastTerm" | "unreachable">;
  clock: Clock;
  logger: Logger;
  cluster: () => string;
  /** The checks the API server's /readyz names failing, when it answers that at all (undefined otherwise). */
  readiness: () => Promise<readonly string[] | undefined>;
  /** Why the configuration holds `finding` back in `edition` (scope, silence), undefined when it is told. */
  suppressed: (finding: Finding, edition: Edition) => Suppression | undefined;
  /** Hands a message to this voice's own delivery (outageDelivery), for `edition`'s providers. */
  send: (message: Message, edition: Edition) => void;
  /** Delivers what was sent for up to `drainMs`, then stops that delivery. */
  drain: (drainMs: number) => Promise<void>;
}): OutageVoice {
  const { elector, clock, logger } = deps;
  let edition: Edition | undefined;
  let timer: Cancel | undefined;
  let thread: UnreachableThread | undefined;
  let held: number | undefined;
  let checking: Promise<void> = Promise.resolve();
  const say = (t: UnreachableThread, now: number) => {
    if (edition) deps.send(renderUnreachable(deps.cluster(), t, now), edition);
  };

  const look = async () => {
    if (edition === undefined) return;
    const now = clock.now();
    const down = elector.unreachable();
    if (thread) {
      if (down?.since === thread.finding.since) return;
      logger.info(`the API server answers again: resolving api-unreachable@${thread.term}`);
      say({ ...thread, to: now }, now);
      thread = undefined;
      return;
    }
    const status = elector.status();
    const term = elector.lastTerm();
    if (!down || status.leading || term === undefined || status.holder !== status.identity) return;
    // Told once its finding opens (the catalogue's minute); held back once per outage.
    if ((apiUnreachable(down, now).opensAt ?? 0) > now || held === down.since) return;
    const failing = await deps.readiness();
    const finding = apiUnreachable({ ...down, ...(failing?.length ? { failing } : {}) }, clock.now());
    const since = new Date(down.since).toISOString();
    const why = deps.suppressed(finding, edition);
    if (why) {
      held = down.since;
      logger.info(`the API server is unreachable since ${since}: not told (${why})`);
      return;
    }
    thread = { term, finding, nextSteps: nextStepsFor(finding.reason, finding.object) };
    logger.warn(`the API server is unreachable since ${since}: telling the providers (api-unreachable@${term})`);
    say(thread, clock.now());
  };
  const check = () => (checking = checking.then(look, look));
  const tick = () => {
    if (edition === undefined) return;
    // A look that failed (its delivery could not open) is logged; the next one comes all the same.
    timer = clock.setTimer(
      () =>
        void check()
          .catch((error: unknown) => logger.warn(`the API server outage notice: ${(error as Error).message}`))
          .then(tick),
      CHECK_MS,
    );
  };

  return {
    deposed(next) {
      edition = next;
      held = undefined;
      timer?.();
      tick();
    },
    check,
    async close(drainMs, stopped) {
      await checking.catch(() => {});
      // After the look in flight (whose end arms the next), so no timer is left behind.
      timer?.();
      timer = undefined;
      const now = clock.now();
      if (thread) say({ ...thread, ...(stopped ? { stopped } : { to: now }) }, now);
      thread = undefined;
      edition = undefined;
      await deps.drain(drainMs);
    },
  };
}

/**
 * The outage voice's own delivery (issue 53): opened at its first message over the configured providers, its
 * records in memory — the state store is the leader's, fenced — and stopped by `drain` (the providers stay
 * open: the leader's work uses them too). The edition is the one the deposed term ran in.
 */
export function outageDelivery(deps: {
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  health: HealthRegistry;
  config: () => LoadedConfig;
  prepared: () => Prepared;
}): Pick<Parameters<typeof createOutageVoice>[0], "send" | "drain"> {
  let side: Promise<DeliverySide> | undefined;
  let edition: Edition = "community";
  return {
    send(message, next) {
      edition = next;
      const config = deps.config().config;
      side ??= openStateStore().then((store) =>
        openDeliverySide({
          ...{ prepared: deps.prepared(), config, clock: deps.clock, logger: deps.logger },
          ...{ metrics: deps.metrics, health: deps.health, store: createDeliveryStore(store) },
          cluster: config.app.clusterName,
          edition: () => edition,
        }),
      );
      void side.then((s) => s.outgoing.send([{ message }], deps.clock.now()));
    },
    async drain(drainMs) {
      const open = side;
      side = undefined;
      if (!open) return;
      const s = await open;
      await s.outgoing.settled();
      await s.delivery.drain(drainMs);
      s.delivery.stop();
    },
  };
}

/** The /readyz checks the API server names failing, asked once with a deadline of READYZ_MS. */
export async function failingReadiness(connection: KubeConnection, clock: Clock): Promise<string[] | undefined> {
  const deadline = new AbortController();
  const cancel = clock.setTimer(() => deadline.abort(), READYZ_MS);
  try {
    const ready = await readApiServerReadiness(connection, deadline.signal);
    return ready && !ready.ok ? [...ready.failing] : undefined;
  } finally {
    cancel();
  }
}

/** Why the configuration in effect holds an outage's finding back (its scope, its silences), for the voice. */
export function outageSuppression(
  config: () => LoadedConfig,
  inventory: () => InventoryView,
  clock: Clock,
): (finding: Finding, edition: Edition) => Suppression | undefined {
  return (finding, edition) => suppressionOf(finding, inventory(), rulesFor(config().config, edition), clock.now());
}
