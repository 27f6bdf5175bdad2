import { createHash, type KeyObject } from "node:crypto";
import { BUILD } from "../build-info.ts";
import type { Metrics } from "../metrics.ts";
import type { Edition } from "../model/edition.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { LicenseClient, LicenseOutcome } from "./client.ts";
import type { InstanceStore } from "./instance-secret.ts";
import { maskLicenseId, verifyLease } from "./lease.ts";
import {
  initialLicenseState,
  isPro,
  LICENSE_STATES,
  type LicenseEvent,
  type LicenseState,
  nextTimeChange,
  stepLicense,
} from "./machine.ts";

const MINUTE = 60_000;
/** Renewal is daily (spec 8); after a failed call mon retries after 1, 5, 15, 30, then every 60 minutes. */
const RENEW_MS = 24 * 60 * MINUTE;
const RETRY_MS = [1, 5, 15, 30, 60].map((m) => m * MINUTE);
/** How often the leader looks at the instance Secret for the installer's deactivated-at. */
const SECRET_POLL_MS = MINUTE;
/** How often the clock's high-water mark is written even when nothing else changed. */
const HIGH_WATER_WRITE_MS = 60 * MINUTE;

/** The license as the rest of mon sees it. */
export interface LicenseManager {
  state(): LicenseState;
  edition(): Edition;
  /** Reads the instance Secret and activates (or renews) once; resolves when the edition is decided. */
  start(): Promise<void>;
  stop(): void;
}

/** What the manager needs; `onNotice` sends a notice to the providers, `onEdition` switches the edition. */
export interface LicenseManagerOptions {
  readonly key?: string;
  readonly client: LicenseClient;
  readonly store: InstanceStore;
  readonly keys: readonly KeyObject[];
  /** The build the keys are this one's (src/build-info.ts): how an untrusted answer is explained. */
  readonly build?: "release" | "development";
  readonly clusterUuid: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: Pick<Metrics, "licenseState" | "licenseExpiry" | "licenseRenewals">;
  /** Elapsed-time source in ms that setting the clock cannot move (default performance.now; tests: the fake clock). */
  readonly monotonic?: () => number;
  onNotice(text: string): void;
  onEdition(edition: Edition): void;
}

/**
 * The leader's license work (spec 3.4, 5.4; docs/license.md): activation before the components are built,
 * daily renewal with retries, the lease and grace running out on the clock, the installer's deactivation
 * through the instance Secret, notices and metrics. The key is never logged: only the masked license id.
 */
export function createLicenseManager(options: LicenseManagerOptions): LicenseManager {
  const { clock, logger, store } = options;
  const keySha256 = options.key ? createHash("sha256").update(options.key).digest("hex") : undefined;
  const monotonic = options.monotonic ?? (() => performance.now());
  // License time: the persisted high-water mark plus the time that really passed since, or the clock if later.
  // Setting the clock back therefore neither stops nor rewinds it, across restarts too.
  let anchor = { wall: clock.now(), mono: monotonic() };
  const now = () => Math.max(clock.now(), anchor.wall + (monotonic() - anchor.mono));
  let state = initialLicenseState(clock.now());
  let failures = 0;
  let nextAttemptAt = 0;
  let lastWrite = 0;
  let deactivatedAt: string | undefined;
  let timer: (() => void) | undefined;
  let stopped = false;

  const report = () => {
    for (const name of LICENSE_STATES) options.metrics?.licenseState.set({ state: name }, name === state.name ? 1 : 0);
    const end = state.name === "active" ? state.leaseExpiresAt : state.name === "grace" ? state.graceUntil : undefined;
    options.metrics?.licenseExpiry.set(end ? Math.floor(end / 1000) : 0);
  };
  const describe = (s: LicenseState) => {
    const id = maskLicenseId(s.licenseId);
    if (s.name === "active") return `active (license ${id}, lease until ${iso(s.leaseExpiresAt)})`;
    if (s.name === "grace") return `grace (license ${id}, Pro until ${iso(s.graceUntil)})`;
    return `${s.name}${s.reason ? `: ${s.reason}` : ""}`;
  };
  const persist = async () => {
    if (!keySha256) return;
    try {
      await store.write({ state, keySha256, ...(deactivatedAt ? { deactivatedAt } : {}) });
      lastWrite = now();
    } catch (error) {
      logger.warn(`license: could not write the instance Secret: ${(error as Error).message}`);
    }
  };
  // The state last logged: start() says where the license stands once, whether or not a step changed it.
  let logged: string | undefined;
  const apply = (event: LicenseEvent) => {
    const before = state;
    const result = stepLicense(state, event, now());
    state = result.state;
    if (before.name !== state.name) {
      logged = state.name;
      logger.info(`license: ${describe(state)}`);
    }
    for (const n of result.notices) options.onNotice(n.text);
    if (isPro(before) !== isPro(state) && !stopped) options.onEdition(isPro(state) ? "pro" : "community");
    report();
  };
  const outcome = (o: LicenseOutcome) => {
    if (o.kind === "unreachable") {
      options.metrics?.licenseRenewals.inc({ result: "error" });
      failures += 1;
      nextAttemptAt = now() + (RETRY_MS[Math.min(failures, RETRY_MS.length) - 1] ?? 60 * MINUTE);
      logger.warn(
        o.untrusted
          ? `license: ${o.untrusted.server} answered, but not with a signature this build trusts: ${(options.build ?? BUILD) === "release" ? 'a released mon accepts only the vendor\'s license server, so a test or other license server cannot turn Pro on (docs/license.md "Evaluating Pro")' : "it is neither the vendor's nor the test license server's"}; mon stays Community; next try ${iso(nextAttemptAt)}`
          : `license: the license server did not answer (${o.detail}); next try ${iso(nextAttemptAt)}`,
      );
      apply({ type: "unreachable", detail: o.detail, ...(o.untrusted ? { untrusted: true } : {}) });
      return;
    }
    options.metrics?.licenseRenewals.inc({ result: o.payload.status === "active" ? "success" : "rejected" });
    failures = 0;
    nextAttemptAt = now() + RENEW_MS;
    apply({ type: "answer", payload: o.payload, signed: o.signed });
  };
  const attempt = async () => {
    if (!options.key) return;
    const renewing = state.instanceKey && state.name !== "invalid";
    outcome(
      renewing ? await options.client.renew(state.instanceKey ?? "") : await options.client.activate(options.key),
    );
  };
  const schedule = () => {
    timer?.();
    if (stopped || !options.key) return;
    const t = now();
    const times = [nextAttemptAt, nextTimeChange(state) ?? Number.POSITIVE_INFINITY];
    if (state.instanceKey) times.push(t + SECRET_POLL_MS);
    const at = Math.max(t, Math.min(...times));
    timer = clock.setTimer(() => void wake(), at - t);
  };
  const wake = async () => {
    if (stopped) return;
    try {
      if (state.instanceKey && (await deactivated())) return;
      const due = now() >= nextAttemptAt;
      if (due) await attempt();
      const before = state;
      apply({ type: "tick" });
      if (due || before.name !== state.name || now() - lastWrite >= HIGH_WATER_WRITE_MS) await persist();
    } catch (error) {
      logger.warn(`license: ${(error as Error).message}`);
    }
    schedule();
  };
  /** The installer's "remove key": release the binding, go Community, remember it. */
  const deactivated = async (): Promise<boolean> => {
    let record: Awaited<ReturnType<InstanceStore["read"]>>;
    try {
      record = await store.read();
    } catch (error) {
      logger.warn(`license: could not read the instance Secret: ${(error as Error).message}`);
      return false;
    }
    if (!record.deactivatedAt) return false;
    deactivatedAt = record.deactivatedAt;
    const instanceKey = state.instanceKey;
    if (instanceKey) await options.client.release(instanceKey);
    apply({ type: "deactivated" });
    await persist();
    logger.info(`license: deactivated at ${deactivatedAt}; the cluster binding is released`);
    return true;
  };

  return {
    state: () => state,
    edition: () => (isPro(state) ? "pro" : "community"),
    async start() {
      if (!options.key) {
        // No key: Community, and no license call or Secret access at all (spec 3.4).
        apply({ type: "no_key" });
        return;
      }
      let record: Awaited<ReturnType<InstanceStore["read"]>> = {};
      try {
        record = await store.read();
      } catch (error) {
        logger.warn(`license: could not read the instance Secret: ${(error as Error).message}`);
      }
      const highWater = Math.max(clock.now(), record.state?.highWater ?? 0);
      anchor = { wall: highWater, mono: monotonic() };
      if (record.state && record.keySha256 === keySha256) {
        state = { ...restored(record.state, options), highWater };
        if (record.deactivatedAt) {
          deactivatedAt = record.deactivatedAt;
          apply({ type: "deactivated" });
          report();
          return;
        }
      } else state = initialLicenseState(highWater);
      report();
      await attempt();
      apply({ type: "tick" });
      await persist();
      if (logged !== state.name) logger.info(`license: ${describe(state)}`);
      schedule();
    },
    stop() {
      stopped = true;
      timer?.();
    },
  };
}

// --- internal ---

function iso(ms: number | undefined): string {
  return ms ? new Date(ms).toISOString() : "?";
}

/** A state read from the Secret: its lease is trusted only if its signature still verifies. */
function restored(saved: LicenseState, options: Pick<LicenseManagerOptions, "keys" | "clusterUuid">): LicenseState {
  const state = { ...initialLicenseState(), ...saved, notified: saved.notified ?? [] };
  if (!isPro(state)) return state;
  try {
    if (!state.lease) throw new Error("no lease");
    verifyLease(state.lease, options.keys, { clusterUuid: options.clusterUuid });
    return state;
  } catch {
    return { ...state, name: "pending", lease: undefined, reason: "the saved lease could not be verified" };
  }
}
