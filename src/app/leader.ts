import { auditEntries } from "../incident/audit.ts";
import { createCallHome } from "./edition/callhome.ts";
import type { Carried, Leader, LeaderOptions } from "./leader-types.ts";
import { openDeliverySide } from "./delivery/stages.ts";
import { createDiagnostics } from "./replica/diagnostics.ts";
import { startEdition } from "./edition/license.ts";
import { createPassLoop } from "./pass/loop.ts";
import { createKeeper, openDaemonState, stateOptions } from "./replica/state.ts";
import { createPassSources } from "./pass/sources.ts";
import { auditFor } from "./delivery/audit.ts";
import { createNotices } from "./delivery/notices.ts";
import { statusSource } from "./replica/status.ts";

/**
 * The leader's work (spec 1.9, 3.3; docs/leadership.md), built once this replica holds the state lock: the
 * license decides the edition, the state is restored (outbox, conversations, kept incidents), then delivery,
 * call home, usage sources, probes and the pass loop are built. `begin()` starts them at the first sync after
 * leading (at once when the standby's caches are already warm); `halt()` stops deciding, sending and calling
 * out (what is queued stays in the outbox); `finish()` drains delivery and closes the state.
 */
export async function startLeader(options: LeaderOptions): Promise<Leader> {
  const { daemon, clock, logger, connection, metrics, health, prepared, inventory, holds, carried } = options;
  const loaded = daemon.config;
  const config = loaded.config;
  const cluster = config.app.clusterName;
  // The license decides the edition before the components are built (spec 4.3); it can change while running.
  const { control, license: licensed } = await startEdition({
    ...(daemon.edition ? { fixed: daemon.edition } : {}),
    ...(carried?.license ? { carried: carried.license } : {}),
    ...{ loaded, connection, http: prepared.http, clock, logger, metrics },
    inactive: () => router.inactive,
  });
  const license = licensed?.manager;
  const pro = () => control.current() === "pro";
  // A state file in Pro, memory in Community; the state moves when the edition changes (docs/license.md).
  const state =
    carried?.state ?? (await openDaemonState(stateOptions(loaded, pro(), { clock, logger, metrics, health })));
  const side = await openDeliverySide({
    ...{ prepared, config, clock, logger, metrics, health, cluster, store: state.delivery },
    ...{ edition: () => control.current(), pageStore: () => state.store },
    ...(holds ? { holds } : {}),
  });
  const { router, observe, delivery, outgoing } = side;
  const audit = auditFor(config, daemon, observe, logger);
  const callHome = createCallHome({
    ...{ loaded, connection, http: prepared.http, store: state.store, clock, logger, metrics, health },
    edition: () => control.current(),
    notice: (sentence) => control.notice(sentence, "Upgrade"),
    ...(daemon.build ? { build: daemon.build } : {}),
  });
  const sources = createPassSources({
    ...{ config, connection, inventory, clock, logger, health, metrics, away: options.controlPlaneAway },
    schedule: () => loop.schedule(),
    ...(daemon.dnsMetricsPort !== undefined ? { dnsMetricsPort: daemon.dnsMetricsPort } : {}),
  });
  let started = false;
  control.attach(outgoing);
  // What follows the edition when the license changes it.
  control.onSwitch((edition) => {
    sources.editionChanged(edition);
    callHome.editionChanged(edition);
    void state.usePersistent(edition === "pro");
    observe.editionChanged();
  });
  const restoredFromState = carried ? undefined : await state.loadLifecycle();
  const restored = carried ? carried.lifecycle : restoredFromState;
  const keeper = createKeeper(state, () => outgoing.settled().then(() => delivery.persisted()), holds, logger);
  const notices = createNotices({
    ...{ config, clock, logger, outgoing, delivery, state, health },
    ...{ restored: restoredFromState, blindThreads: await state.loadBlindThreads(), usage: sources.usage },
    carried: carried !== undefined,
  });
  const loop = createPassLoop({
    ...{ clock, inventory, cluster, evidence: sources.evidence, ready: options.synced, usage: sources.view },
    explain: config.healthCheck.diagnostics.enabled,
    rules: () => control.rules(),
    onResult(result, now) {
      observe.pass(result);
      notices.afterPass(result.state, now);
      if (audit && pro())
        for (const entry of auditEntries(result.decisions, result.skipped, cluster)) audit.write(entry);
      outgoing.send(result.messages, now);
    },
    onLag: (seconds) => metrics.decisionLag.observe(seconds),
    nextWakeAt: () => delivery.nextOverflowAt(),
    ...(restored ? { initial: restored } : {}),
    ...(carried ? { baselined: true } : {}),
    ...(options.failingAtSync ? { failingAtSync: options.failingAtSync } : {}),
    onState: keeper.keep,
    ...(daemon.passDelayMs !== undefined ? { delayMs: daemon.passDelayMs } : {}),
  });
  // One drain for `finish` and `handOver`: delivery for up to `drainMs`, then the audit log and the state.
  const drainAndClose = async (drainMs: number) => {
    const left = await side.drain(drainMs);
    await audit?.flush();
    await keeper.saved();
    return left;
  };
  // Stops deciding and calling out; returns what this work kept, open, for the next one of this process.
  const stopCalling = (): Carried => {
    for (const part of [notices, callHome, loop, sources]) part.stop();
    return { state, lifecycle: loop.state(), ...(licensed ? { license: licensed } : {}) };
  };

  return {
    ...{ loop, delivery, router, usage: sources.usage },
    ...(sources.probes ? { probes: sources.probes } : {}),
    ...(license ? { license } : {}),
    edition: () => control.current(),
    persistentState: () => state.store.persistent,
    evidencePending: () => sources.evidence.busy(),
    sent: () => outgoing.settled(),
    diagnostics: createDiagnostics({ loop, delivery, router, providers: prepared.providers, clock, cluster, observe }),
    status: statusSource({
      ...{ clock, cluster, health, inventory, usage: sources.view },
      edition: () => control.current(),
      lifecycle: () => loop.state(),
      ...(license ? { license } : {}),
    }),
    unwatched: notices.unwatched,
    begin() {
      loop.schedule();
      if (started) return;
      started = true;
      sources.start(pro());
      notices.started();
      control.ready();
      callHome.started();
    },
    halt() {
      license?.stop();
      stopCalling();
    },
    async handOver(drainMs) {
      const kept = stopCalling();
      // What is left stays in the outbox and is resumed by the next work in this process.
      await drainAndClose(drainMs);
      return kept;
    },
    depose() {
      delivery.stop();
      return stopCalling();
    },
    async finish(drainMs) {
      const left = await drainAndClose(drainMs);
      if (left) observe.deferred(left);
      await state.close();
    },
  };
}
