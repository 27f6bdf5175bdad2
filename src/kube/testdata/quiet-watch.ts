/**
 * Run by informer-quiet.test.ts in its own process, whose runtime fetch idle timeout is cut to 1 s
 * (BUN_CONFIG_HTTP_IDLE_TIMEOUT): an informer watches a kind nothing changes, through a real connection to the
 * simulator, for `QUIET_SECONDS` of real time; then one object of the kind is created. Prints one JSON line:
 * the informer's log lines and what it delivered.
 */
import { createConsola } from "consola";
import { createSystemClock } from "../../runtime/clock.ts";
import { startSimulator } from "../../sim/simulator.ts";
import { connectKube } from "../connection.ts";
import { createInformer } from "../informer.ts";

const quietMs = Number(process.env.QUIET_SECONDS ?? 20) * 1000;
const logs: string[] = [];
const logger = createConsola({ level: 4, reporters: [{ log: (e) => logs.push(`${e.type}: ${e.args.join(" ")}`) }] });
const sim = await startSimulator({});
const connection = await connectKube({ kubeconfigText: sim.kubeconfig() });
const events: string[] = [];
let synced = false;
const informer = createInformer({
  connection,
  kind: { kind: "PersistentVolume", path: "/api/v1/persistentvolumes" },
  clock: createSystemClock(),
  logger,
  onEvent: (type, o) => events.push(`${type} ${o.metadata.name}`),
  onState: (s) => {
    if (s.state === "synced") synced = true;
  },
  // Nothing but the stream itself: no check on a silent watch, no server-side end within the test.
  checkAfterMs: 0,
  watchTimeoutSeconds: 3600,
});
informer.start();
while (!synced) await new Promise((resolve) => setTimeout(resolve, 50));
await new Promise((resolve) => setTimeout(resolve, quietMs));
sim.apply({
  apiVersion: "v1",
  kind: "PersistentVolume",
  metadata: { name: "late" },
  spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/late" } },
});
const until = Date.now() + 30_000;
while (!events.includes("ADDED late") && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
informer.stop();
await sim.stop();
console.log(JSON.stringify({ logs, events }));
process.exit(0);
