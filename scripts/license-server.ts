/**
 * The test license server for evaluating Pro from a source checkout (docs/license.md "Evaluating Pro"):
 * `bun scripts/license-server.ts` serves on a free loopback port, issues one license and prints the two
 * variables that point `bun src/main.ts run` at it. A released binary trusts only the vendor's signing key,
 * so this server turns Pro on only for mon run from source. Stops on Ctrl-C.
 */
import { startLicenseServer } from "../src/testing/license-server.ts";

const server = await startLicenseServer(() => Date.now());
const key = server.addLicense();
console.log(`test license server on ${server.url}: one license, valid for a year, bound to the first cluster that activates it
  export MON_LICENSE_URL=${server.url}
  export MON_LICENSE_KEY=${key}
then, in the same shell, run mon from source: bun src/main.ts run --kubeconfig ~/.kube/config --config mon.yaml`);
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
