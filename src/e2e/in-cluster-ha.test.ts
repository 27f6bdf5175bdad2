import { afterAll, describe, expect } from "bun:test";
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { REAL_NODE_TAINT } from "../sim/standin/story-cluster.ts";
import { type CaptureServer, startCaptureServer } from "../testing/capture-server.ts";
import { helm } from "../testing/helm.ts";
import { compiledImage } from "../testing/image.ts";
import {
  busyboxDeployment,
  containerPid,
  followLog,
  health,
  kubectlJson,
  monPods,
  type Pod,
  podsReport,
  podReady,
  poll,
  threadAt,
  announcesOf,
} from "../testing/in-cluster.ts";
import { type LicenseServer, startLicenseServer } from "../testing/license-server.ts";
import { BINARIES, realTest } from "../testing/real-components.ts";
import { REAL_NODE_SUBNET, type RealNode, realNode, realNodeTest } from "../testing/real-node.ts";
import { pastYoungNodeGrace } from "../testing/real-stories.ts";
import { type BridgeApiServer, startBridgeApiServer } from "../testing/bridge-api-server.ts";
import { VERSION } from "../version.ts";

/**
 * Two replicas of mon as a Pro user runs them (issue 51): the image of a development build (which trusts the test
 * license server, src/testing/license-server.ts), installed by Helm with two replicas and the state file on a
 * volume, on the real node. The pods run on the node's bridge as the chart's default has them, not on the host's
 * network (two replicas on one node could not both bind the node's health port): they reach the API server at the
 * bridge's address by the name its certificate carries (chart values apiServer and hostAliases,
 * src/testing/bridge-api-server.ts), and the license server and the webhook receiver listen there too. One replica leads, the
 * other waits as an available standby; killing the leader's container and then `helm upgrade` hand the Lease over,
 * and the incidents' threads go on: each announced once, each resolved once, nothing lost.
 */
const ROOT = join(import.meta.dirname, "..", "..");
const CHART = join(ROOT, "deploy", "chart", "mon");
const NS = "mon-ha";
const APPS = "ha-apps";
const TAG = `localhost/mon:${VERSION}-ha`;
const BRIDGE = `${REAL_NODE_SUBNET}.1`;
const HEALTH_PORT = 8060;
const haTest = BINARIES.helm
  ? realNodeTest("two replicas of mon's image installed by Helm on the real node")
  : realTest("two replicas of mon's image installed by Helm on the real node", "helm");

interface Installed {
  node: RealNode;
  hook: CaptureServer;
  licenses: LicenseServer;
  api: BridgeApiServer;
  valuesFile: string;
  dir: string;
}
let installed: Installed | undefined;
const need = () => {
  if (!installed) throw new Error("mon was not installed (the first test failed)");
  return installed;
};

afterAll(async () => {
  if (!installed) return;
  const { node } = installed;
  await helm(node.kube, ["uninstall", "mon", "-n", NS, "--wait", "--timeout", "60s"]);
  await node.kube.kubectl(["delete", "namespace", NS, APPS, "--ignore-not-found", "--wait=false"]);
  await node.kube.kubectl(["delete", "persistentvolume", `${NS}-state`, "--ignore-not-found", "--wait=false"]);
  await installed.hook.close();
  await installed.licenses.close();
  await installed.api.close();
  rmSync(installed.dir, { recursive: true, force: true });
});

/** mon's pods that are not terminating, each with its /health (undefined while it does not answer). */
async function replicas(node: RealNode) {
  const pods = (await monPods(node, NS)).filter((p) => !p.metadata.deletionTimestamp);
  return Promise.all(
    pods.map(async (pod) => ({
      pod,
      health: pod.status?.podIP
        ? await health(`http://${pod.status.podIP}:${HEALTH_PORT}`).catch(() => undefined)
        : undefined,
    })),
  );
}

/** The holder of the Lease mon-leader, and how many times it changed hands. */
async function lease(node: RealNode): Promise<{ holder: string; transitions: number }> {
  const l = await kubectlJson<{ spec: { holderIdentity?: string; leaseTransitions?: number } }>(node, [
    "-n",
    NS,
    "get",
    "lease",
    "mon-leader",
  ]);
  return { holder: l.spec.holderIdentity ?? "", transitions: l.spec.leaseTransitions ?? 0 };
}

/**
 * Resolves once two pods run, both available (Ready: the chart probes /availabilityz), exactly one leading — it
 * holds the Lease and answers /readyz — and the other a standby waiting for the Lease whose /readyz says 503.
 * `not`: a pod that must not be the leader (the one just killed or rolled away).
 */
async function leaderAndStandby(node: RealNode, what: string, not?: string): Promise<{ leader: Pod; standby: Pod }> {
  return poll(what, 180_000, async () => {
    const rs = await replicas(node);
    if (rs.length !== 2 || !rs.every((r) => podReady(r.pod) && r.health)) return undefined;
    const leading = rs.filter((r) => r.health!.stateLock === "held");
    const waiting = rs.filter((r) => r.health!.stateLock === "waiting");
    if (leading.length !== 1 || waiting.length !== 1) return undefined;
    const leader = leading[0]!.pod;
    if (leader.metadata.name === not) return undefined;
    if ((await lease(node)).holder !== leader.metadata.name) return undefined;
    const readyz = async (p: Pod) => (await fetch(`http://${p.status!.podIP}:${HEALTH_PORT}/readyz`)).status;
    if ((await readyz(leader)) !== 200) return undefined;
    expect(await readyz(waiting[0]!.pod)).toBe(503);
    return { leader, standby: waiting[0]!.pod };
  });
}

const thread = (hook: CaptureServer, name: string) => threadAt(hook, `Deployment/${APPS}/${name}`);
/** A crash loop's announces (its own, or a roll-up's that covers it) or its other messages (`resolve`). */
const count = (hook: CaptureServer, name: string, action: string) =>
  action === "announce"
    ? announcesOf(hook, `Deployment/${APPS}/${name}`)
    : thread(hook, name).filter((m) => m.action === action).length;

/** Mends a crash-looping Deployment: its container now runs and stays up. */
async function mend(node: RealNode, name: string): Promise<void> {
  const r = await node.kube.kubectl(["apply", "-f", "-"], JSON.stringify(busyboxDeployment(APPS, name, "sleep 3600")));
  if (r.status !== 0) throw new Error(r.output);
}

describe("two replicas (Pro) with their state, by Helm on the real node (issue 51)", () => {
  haTest(
    "helm install with two replicas: one leads and is ready, the other is a live, available standby; a crash loop is announced once",
    async () => {
      const node = await realNode();
      const dir = mkdtempSync(join(tmpdir(), "mon-ha-"));
      const image = await compiledImage(dir, TAG, { development: true });
      writeFileSync(join(dir, "mon.tar"), image.bytes);
      expect(node.ctr(["images", "import", join(dir, "mon.tar")]).status).toBe(0);
      const api = await startBridgeApiServer(node.kube, BRIDGE);
      const hook = await startCaptureServer(BRIDGE);
      const licenses = await startLicenseServer(() => Date.now(), BRIDGE);
      const valuesFile = join(dir, "values.yaml");
      installed = { node, hook, licenses, api, valuesFile, dir };
      for (const ns of [NS, APPS]) await node.kube.kubectl(["create", "namespace", ns]);
      const key = licenses.addLicense();
      expect(
        (await node.kube.kubectl(["-n", NS, "create", "secret", "generic", "mon-license", `--from-literal=key=${key}`]))
          .status,
      ).toBe(0);

      // The state volume: a directory of the node, owned by mon's user and bound to the chart's claim (this
      // machine has no provisioner).
      const stateDir = join(dir, "state");
      mkdirSync(stateDir);
      chownSync(stateDir, 65532, 65532);
      const made = await node.kube.kubectl(
        ["apply", "-f", "-"],
        JSON.stringify({
          apiVersion: "v1",
          kind: "PersistentVolume",
          metadata: { name: `${NS}-state` },
          spec: {
            capacity: { storage: "1Gi" },
            accessModes: ["ReadWriteOnce"],
            persistentVolumeReclaimPolicy: "Retain",
            hostPath: { path: stateDir, type: "Directory" },
            claimRef: { namespace: NS, name: "mon-state" },
          },
        }),
      );
      expect(made.status).toBe(0);

      writeFileSync(
        valuesFile,
        stringify({
          image: { repository: TAG.split(":")[0], tag: TAG.split(":")[1], pullPolicy: "Never" },
          replicas: 2,
          state: { enabled: true },
          license: { existingSecret: "mon-license" },
          extraEnv: [{ name: "MON_LICENSE_URL", value: licenses.url }],
          apiServer: { host: api.hostname, port: api.port },
          hostAliases: [{ ip: api.ip, hostnames: [api.hostname] }],
          nodeSelector: { "kubernetes.io/hostname": "localhost" },
          tolerations: [{ key: REAL_NODE_TAINT, operator: "Exists", effect: "NoSchedule" }],
          config: {
            values: {
              app: { clusterName: "ha" },
              namespaces: [APPS],
              kubelet: { insecureSkipVerify: true },
              alert: { webhook: { url: `${hook.url}/ha` } },
            },
          },
        }),
      );
      const started = Date.now();
      const install = await helm(node.kube, ["install", "mon", CHART, "-n", NS, "-f", valuesFile]);
      expect(install.status).toBe(0);
      const { leader, standby } = await leaderAndStandby(node, "a leader and a standby").catch(async (e: Error) => {
        throw new Error(`${e.message}\n${await podsReport(node, NS)}`);
      });
      console.log(
        `in-cluster HA: helm install to a leader and an available standby in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      // The standby is live (the kubelet's liveness probe never failed it) and says why it is not ready.
      const standbyHealth = await health(`http://${standby.status!.podIP}:${HEALTH_PORT}`);
      expect(standbyHealth.components.leadership?.state).toBe("pending");
      expect(standby.status?.containerStatuses?.[0]?.restartCount).toBe(0);
      // Pro came from the license server through the real license path; only the leader activated it.
      const metrics = await fetch(`http://${leader.status!.podIP}:${HEALTH_PORT}/metrics`).then((r) => r.text());
      expect(metrics).toMatch(/^mon_license_state\{state="active"\} 1$/m);
      expect(licenses.calls("/v1/activate")).toBeGreaterThanOrEqual(1);
      // On the pods' own network, by the certificate's name: TLS checked against the ServiceAccount's CA.
      const logs = (await node.kube.kubectl(["-n", NS, "logs", leader.metadata.name])).output;
      expect(logs).toContain(`watching https://${api.hostname}:${api.port} (in-cluster)`);

      await pastYoungNodeGrace(node.registeredAt);
      for (const name of ["first", "second"]) {
        const d = busyboxDeployment(APPS, name, `echo 'FATAL: ${name} cannot open /data/db'; exit 3`);
        expect((await node.kube.kubectl(["apply", "-f", "-"], JSON.stringify(d))).status).toBe(0);
      }
      await poll("both crash loops announced", 240_000, async () =>
        ["first", "second"].every((n) => count(hook, n, "announce") === 1),
      );
    },
    // mon holds what fails on a node younger than 10 minutes (young-node grace): run alone, it waits for that.
    900_000,
  );

  haTest(
    "killing the leader's container: its pod's next container takes the Lease at once as a new term, the standby stays one, and the threads go on",
    async () => {
      const { node, hook } = need();
      const { leader, standby } = await leaderAndStandby(node, "a leader and a standby");
      const before = await lease(node);
      const killed = Date.now();
      process.kill(containerPid(node, leader), "SIGKILL");
      // The same identity (POD_NAME, spec 9), a new process: a new term, without waiting for the Lease to expire.
      await poll("the restarted container to lead", 60_000, async () => {
        const l = await lease(node);
        return l.holder === leader.metadata.name && l.transitions === before.transitions + 1;
      });
      const after = await leaderAndStandby(node, "the restarted leader ready, the standby still one");
      console.log(
        `in-cluster HA: leader's container killed; its next container led again in ${((Date.now() - killed) / 1000).toFixed(1)} s`,
      );
      expect(after.leader.metadata.uid).toBe(leader.metadata.uid);
      expect(after.standby.metadata.uid).toBe(standby.metadata.uid);
      // The kubelet writes the restart into the pod's status a moment after the new container runs.
      await poll("the leader's restart in its status", 30_000, async () => {
        const p = (await monPods(node, NS)).find((x) => x.metadata.uid === leader.metadata.uid);
        return p?.status?.containerStatuses?.[0]?.restartCount === 1;
      });

      await mend(node, "first");
      await poll("the first crash loop resolved", 240_000, async () => count(hook, "first", "resolve") === 1);
      expect(count(hook, "first", "announce")).toBe(1);
      expect(count(hook, "second", "announce")).toBe(1);
    },
    420_000,
  );

  haTest(
    "deleting the leader's pod (--grace-period=0 --force): another replica takes the Lease at once, and the pod that replaces it is the other one",
    async () => {
      const { node } = need();
      const { leader } = await leaderAndStandby(node, "a leader and a standby");
      const before = await lease(node);
      const deleted = Date.now();
      const r = await node.kube.kubectl([
        "-n",
        NS,
        "delete",
        "pod",
        leader.metadata.name,
        "--grace-period=0",
        "--force",
      ]);
      expect(r.status).toBe(0);
      // The standby, or the pod that replaces the deleted one if it asks first: either way not the deleted pod.
      const holder = await poll("another replica to take the Lease", 60_000, async () => {
        const l = await lease(node);
        return l.holder !== "" && l.holder !== leader.metadata.name ? l.holder : undefined;
      });
      const tookOver = (Date.now() - deleted) / 1000;
      const after = await leaderAndStandby(node, "a new leader and a standby", leader.metadata.name);
      console.log(
        `in-cluster HA: leader's pod deleted; ${holder} took the Lease in ${tookOver.toFixed(1)} s, ready in ${((Date.now() - deleted) / 1000).toFixed(1)} s`,
      );
      expect((await lease(node)).transitions).toBe(before.transitions + 1);
      expect([after.leader.metadata.name, after.standby.metadata.name]).not.toContain(leader.metadata.name);
      // Released on the kubelet's stop, or at worst once the Lease expires (15 s) and a retry period or two, on a
      // machine that may be busy.
      expect(tookOver).toBeLessThan(45);
    },
    300_000,
  );

  haTest(
    "helm upgrade with a changed value rolls both replicas; the Lease is handed over on SIGTERM, and nothing is told twice or lost",
    async () => {
      const i = need();
      const { node, hook } = i;
      const { leader, standby } = await leaderAndStandby(node, "a leader and a standby");
      const lastWords = followLog(node, NS, leader.metadata.name);
      const started = Date.now();
      const r = await helm(node.kube, [
        "upgrade",
        "mon",
        CHART,
        "-n",
        NS,
        "-f",
        i.valuesFile,
        "--set",
        "podAnnotations.rolled=yes",
      ]);
      expect(r.status).toBe(0);
      const rolled = await poll("both replicas rolled", 240_000, async () => {
        const pods = await monPods(node, NS);
        const olds = [leader, standby].map((p) => p.metadata.uid);
        if (pods.some((p) => olds.includes(p.metadata.uid))) return undefined;
        return leaderAndStandby(node, "a leader and a standby after the upgrade").catch(() => undefined);
      });
      console.log(
        `in-cluster HA: helm upgrade to both replicas rolled, one leading, in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      expect([leader.metadata.name, standby.metadata.name]).not.toContain(rolled.leader.metadata.name);
      const said = await lastWords;
      expect(said).toContain("SIGTERM: shutting down");
      expect(said).not.toContain("were not delivered");
      expect(said).not.toMatch(/^\s+at .+[(:]\d+/m);

      await mend(node, "second");
      await poll(
        "the second crash loop resolved after the upgrade",
        240_000,
        async () => count(hook, "second", "resolve") === 1,
      );
      // Each thread: announced once, resolved once, across a kill, a deleted pod, an upgrade and four leaders.
      for (const name of ["first", "second"])
        expect([name, count(hook, name, "announce"), count(hook, name, "resolve")]).toEqual([name, 1, 1]);
      // No incident's thread was told the same thing twice (updates aside: a thread may change more than once).
      const told = hook.requests
        .map((q) => q.json() as { action: string; incidentId?: string })
        .filter((m) => m.incidentId?.startsWith("Deployment/") && m.action !== "update")
        .map((m) => `${m.action} ${m.incidentId}`);
      expect(told.filter((k, at) => told.indexOf(k) !== at)).toEqual([]);
    },
    600_000,
  );
  haTest(
    "helm uninstall of the two replicas leaves nothing but the kept state claim; the namespaces go before the next test",
    async () => {
      const i = need();
      const { node } = i;
      const r = await helm(node.kube, ["uninstall", "mon", "-n", NS, "--wait", "--timeout", "120s"]);
      expect(r.status).toBe(0);
      // The Lease goes with mon's ServiceAccount; the state claim is kept (helm.sh/resource-policy: keep).
      await poll("only the kept claim left", 120_000, async () => {
        const left = (await node.kube.kubectl(["-n", NS, "get", "all,lease,secret,pvc", "-o", "name"])).output
          .split("\n")
          .filter((l) => l && !l.startsWith("secret/mon-license"));
        return left.length === 1 && left[0] === "persistentvolumeclaim/mon-state";
      });
      // Crash loops and all: gone before the suite's next test starts watching the cluster.
      const deleted = await node.kube.kubectl(["delete", "namespace", NS, APPS, "--wait=true", "--timeout=180s"]);
      expect(deleted.status).toBe(0);
      await node.kube.kubectl(["delete", "persistentvolume", `${NS}-state`, "--ignore-not-found"]);
      installed = undefined;
      await i.hook.close();
      await i.licenses.close();
      await i.api.close();
      rmSync(i.dir, { recursive: true, force: true });
    },
    420_000,
  );
});
