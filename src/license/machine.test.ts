import { describe, expect, test } from "bun:test";
import type { LeasePayload } from "./lease.ts";
import { initialLicenseState, isPro, type LicenseState, nextTimeChange, stepLicense } from "./machine.ts";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 5, 1);
const signed = { payload: "p", signature: "s" };
const answer = (payload: Partial<LeasePayload>, at: number) => ({
  type: "answer" as const,
  signed,
  payload: {
    status: "active" as const,
    clusterUuid: "c",
    nonce: "n",
    issuedAt: at / 1000,
    licenseId: "LIC-12345678",
    instanceKey: "inst-1",
    leaseExpiresAt: (at + 3 * DAY) / 1000,
    licenseExpiresAt: (T0 + 365 * DAY) / 1000,
    ...payload,
  },
});

function run(events: [number, Parameters<typeof stepLicense>[1]][], from: LicenseState = initialLicenseState()) {
  let state = from;
  const notices: string[] = [];
  const names: string[] = [];
  for (const [at, event] of events) {
    const r = stepLicense(state, event, at);
    state = r.state;
    names.push(state.name);
    notices.push(...r.notices.map((n) => n.text));
  }
  return { state, notices, names };
}

describe("license states (spec 3.4)", () => {
  test("no key is Community and makes no license call", () => {
    expect(run([[T0, { type: "no_key" }]]).state).toMatchObject({
      name: "community",
      reason: "no license key is configured",
    });
  });

  test("activation grants Pro until the lease ends; one 'Pro enabled' notice", () => {
    const r = run([[T0, answer({}, T0)]]);
    expect(r.state).toMatchObject({ name: "active", leaseExpiresAt: T0 + 3 * DAY, instanceKey: "inst-1" });
    expect(isPro(r.state)).toBe(true);
    expect(r.notices).toEqual(["mon Pro is enabled: license LIC-…78 is active."]);
  });

  test("unreachable at first activation is pending (Community meanwhile), then active when the server answers", () => {
    const r = run([
      [T0, { type: "unreachable", detail: "connect ECONNREFUSED" }],
      [T0 + 60_000, answer({}, T0 + 60_000)],
    ]);
    expect(r.names).toEqual(["pending", "active"]);
  });

  test("without the server: the lease runs out into 4 days of grace, then Pro ends, at most 7 days after the last answer", () => {
    const r = run([
      [T0, answer({}, T0)],
      [T0 + DAY, { type: "unreachable", detail: "timeout" }],
      [T0 + 3 * DAY, { type: "tick" }],
      [T0 + 6 * DAY, { type: "tick" }],
      [T0 + 7 * DAY, { type: "tick" }],
    ]);
    expect(r.names).toEqual(["active", "active", "grace", "grace", "expired"]);
    expect(r.notices).toEqual([
      "mon Pro is enabled: license LIC-…78 is active.",
      "mon could not renew license LIC-…78 since 2026-06-01; Pro continues in grace until 2026-06-08. Check that mon can reach the license server.",
      "mon Pro is disabled: the license server was not reached in 7 days and grace ended. mon continues as Community.",
    ]);
  });

  test("grace is cut so that Pro never runs more than 7 days past the last answer", () => {
    // The last answer 2 days into a lease: lease end + 4 days would be 9 days after it.
    const r = run([
      [T0, answer({ leaseExpiresAt: (T0 + 5 * DAY) / 1000 }, T0)],
      [T0 + 5 * DAY, { type: "tick" }],
    ]);
    expect(r.state.graceUntil).toBe(T0 + 7 * DAY);
  });

  test("the server back after grace ended makes Pro active again", () => {
    const r = run([
      [T0, answer({}, T0)],
      [T0 + 8 * DAY, { type: "tick" }],
      [T0 + 9 * DAY, answer({}, T0 + 9 * DAY)],
    ]);
    expect(r.names).toEqual(["active", "expired", "active"]);
    expect(r.notices.at(-1)).toBe("mon Pro is enabled: license LIC-…78 is active.");
  });

  test("signed refusals end Pro at once: revoked, bound to another cluster, invalid key", () => {
    for (const [status, reason] of [
      ["revoked", "the license was revoked"],
      ["conflict", "the license is bound to another cluster"],
      ["invalid", "the license key is not valid"],
    ] as const) {
      const r = run([
        [T0, answer({}, T0)],
        [T0 + DAY, answer({ status, leaseExpiresAt: undefined }, T0 + DAY)],
      ]);
      expect(r.state).toMatchObject({ name: status, reason });
      expect(isPro(r.state)).toBe(false);
      expect(r.notices.at(-1)).toBe(`mon Pro is disabled: ${reason}. mon continues as Community.`);
    }
  });

  test("setting the clock back a day extends nothing: time is the high-water mark", () => {
    const start = run([[T0, answer({}, T0)]]).state;
    const r = run(
      [
        [T0 + 3 * DAY - 1, { type: "tick" }],
        [T0 + 2 * DAY, { type: "tick" }],
        [T0 + 3 * DAY, { type: "tick" }],
      ],
      start,
    );
    expect(r.names).toEqual(["active", "active", "grace"]);
    expect(r.state.highWater).toBe(T0 + 3 * DAY);
  });

  test("the installer's 'remove key' (deactivated-at) returns to Community with one notice", () => {
    const r = run([
      [T0, answer({}, T0)],
      [T0 + DAY, { type: "deactivated" }],
    ]);
    expect(r.state).toMatchObject({ name: "community", reason: "the license key was removed" });
    expect(r.state.instanceKey).toBeUndefined();
    expect(r.notices.at(-1)).toBe("mon Pro is disabled: the license key was removed. mon continues as Community.");
  });

  test("license ending: one notice at 14 days and one at 3, never twice", () => {
    const ends = T0 + 20 * DAY;
    const a = (at: number) => answer({ licenseExpiresAt: ends / 1000 }, at);
    const r = run([
      [T0, a(T0)],
      [ends - 14 * DAY, a(ends - 14 * DAY)],
      [ends - 13 * DAY, a(ends - 13 * DAY)],
      [ends - 3 * DAY, a(ends - 3 * DAY)],
      [ends - 2 * DAY, a(ends - 2 * DAY)],
    ]);
    expect(r.notices.slice(1)).toEqual([
      "mon Pro license LIC-…78 ends on 2026-06-21 (in 14 days); renew it to keep Pro.",
      "mon Pro license LIC-…78 ends on 2026-06-21 (in 3 days); renew it to keep Pro.",
    ]);
  });

  test("the next time-driven change is the lease end, then the end of grace", () => {
    const active = run([[T0, answer({ licenseExpiresAt: undefined }, T0)]]).state;
    expect(nextTimeChange(active)).toBe(T0 + 3 * DAY);
    const grace = run([[T0 + 3 * DAY, { type: "tick" }]], active).state;
    expect(nextTimeChange(grace)).toBe(T0 + 7 * DAY);
  });
});
