import pkg from "../package.json" with { type: "json" };

/** mon's version string (package.json), shown by `mon --version`, in startup messages and in telemetry. */
export const VERSION: string = pkg.version;
