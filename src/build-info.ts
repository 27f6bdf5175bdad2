/** Replaced by `bun build --define` in release builds (scripts/build.ts); undefined when running from source. */
declare const MON_BUILD: string | undefined;

/**
 * What kind of build this is: `release` for the binaries and image scripts/build.ts produces, `development`
 * when running from source (tests, `bun src/main.ts`). Development builds accept the test license key and send
 * no telemetry (spec 8).
 */
export const BUILD: "release" | "development" =
  typeof MON_BUILD !== "undefined" && MON_BUILD === "release" ? "release" : "development";
