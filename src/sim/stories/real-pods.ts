import type { KubeObject } from "../store.ts";
import {
  between,
  deployment,
  fate,
  INIT_CRASH,
  NS,
  remove,
  service,
  setFate,
  setFates,
  sh,
  type Story,
} from "./story.ts";

/**
 * Stories written for real pods (issue 50): each container's behaviour is its busybox command's (on a real node
 * nothing else decides it), and the pod's fate annotations model the same behaviour for the simulated kubelet,
 * so one story is told to the simulator, to the control plane with stand-in nodes and to the real node alike.
 * Each covers one signal a kubelet writes that no story told on real pods before: a crash loop and an OOM kill
 * loop fixed by a rollout, an image that cannot be pulled, an init container that fails, a missing ConfigMap key,
 * a crash-looping dependency refusing its clients at its pod's IP, healthy churn, a kubelet restart and a node
 * lost with its kubelet stopped.
 */

/** What the api's process prints before it exits 1: it cannot read its configuration. */
const NO_CONFIG = "panic: open /etc/api/config.yaml: no such file or directory";

/** A Deployment of `replicas` pods labelled `app: name`, its one container `container`, with pod-level `spec`. */
function app(
  name: string,
  replicas: number,
  container: KubeObject,
  pod: { spec?: KubeObject; annotations?: Record<string, string> } = {},
): KubeObject {
  return deployment(name, String(container.image), replicas, {
    ...(pod.annotations ? { annotations: pod.annotations } : {}),
    spec: { terminationGracePeriodSeconds: 5, ...pod.spec, containers: [container] },
  });
}

/** A web server on 8080 that serves /index.html at once and stops on SIGTERM after a second (graceful). */
const WEB = [
  "mkdir -p /www && echo ok > /www/index.html",
  "trap 'echo draining; sleep 1; exit 0' TERM",
  "httpd -f -p 8080 -h /www &",
  "wait",
].join("\n");

/**
 * Ready once /index.html answers. The timeout is generous: on a busy machine busybox httpd may answer after the
 * default second, a kubelet event no story means.
 */
const READY_PROBE = { httpGet: { path: "/index.html", port: 8080 }, periodSeconds: 5, timeoutSeconds: 10 };

/** A crash loop fixed by a rollout: the process exits 1 on every start until its configuration is shipped. */
export const crashRollout: Story = {
  name: "crash-rollout",
  description: "a Deployment behind a Service exits 1 on every start (its config file is missing); a rollout fixes it",
  nodes: 1,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Service api and Deployment api (2 pods) whose process cannot open its config file",
      run: (cluster) => {
        cluster.apply(service("api"));
        cluster.apply(
          app("api", 2, sh("api", `echo "starting api"; echo "${NO_CONFIG}"; exit 1`), {
            annotations: fate("crash", `starting api\n${NO_CONFIG}\n`),
          }),
        );
      },
    },
    {
      t: 300,
      say: "kubectl apply: api with its config file (a rollout)",
      run: (cluster) =>
        cluster.apply(
          app("api", 2, sh("api", `mkdir -p /etc/api && echo "port: 8080" > /etc/api/config.yaml\n${WEB}`)),
        ),
    },
  ],
  fixedAt: 300,
  lengthSeconds: 600,
  quick: { at: [0, 300], fixedAt: 300, lengthSeconds: 540 },
  realNode: "together",
};

/** An OOM kill loop by the container's memory limit, fixed by raising the limit (a rollout). */
export const oomLimitRaised: Story = {
  name: "oom-limit-raised",
  description: "a worker outgrows its 20Mi memory limit on every start; a rollout raises the limit",
  nodes: 1,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Deployment worker (1 pod, memory limit 20Mi) that loads a 60 MB model",
      run: (cluster) => cluster.apply(worker("20Mi", fate("oom"))),
    },
    {
      t: 300,
      say: "kubectl set resources deployment/worker --limits=memory=256Mi",
      run: (cluster) => cluster.apply(worker("256Mi")),
    },
  ],
  fixedAt: 300,
  lengthSeconds: 600,
  quick: { at: [0, 300], fixedAt: 300, lengthSeconds: 540 },
  realNode: "together",
};

function worker(limit: string, annotations?: Record<string, string>): KubeObject {
  return app(
    "worker",
    1,
    sh(
      "worker",
      `echo "loading the model"; x=$(head -c 60000000 /dev/zero | tr '\\0' a); echo "model loaded"; exec sleep 3600`,
      { resources: { requests: { memory: "16Mi" }, limits: { memory: limit } } },
    ),
    annotations ? { annotations } : {},
  );
}

/** A rollout names an image no registry has (a typo); the next rollout fixes the tag. */
export const imagePullFixed: Story = {
  name: "image-pull-fixed",
  description: "a rollout of cart names an image that cannot be pulled; the next rollout fixes it",
  nodes: 1,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Deployment cart (2 pods)",
      run: (cluster) => cluster.apply(app("cart", 2, sh("cart", 'echo "cart 1.4.0"; exec sleep 3600'))),
    },
    {
      t: 30,
      say: "kubectl set image deployment/cart cart=registry.example/shop/cart:1.4.O (a typo for 1.4.0)",
      run: (cluster) =>
        cluster.apply(
          app(
            "cart",
            2,
            { ...sh("cart", "exec sleep 3600"), image: "registry.example/shop/cart:1.4.O" },
            {
              annotations: fate("image-missing"),
            },
          ),
        ),
    },
    {
      t: 330,
      say: "kubectl set image deployment/cart cart=localhost/busybox:1 (the tag fixed)",
      run: (cluster) => cluster.apply(app("cart", 2, sh("cart", 'echo "cart 1.4.1"; exec sleep 3600'))),
    },
  ],
  fixedAt: 330,
  lengthSeconds: 600,
  quick: { at: [0, 30, 330], fixedAt: 330, lengthSeconds: 540 },
  realNode: "together",
};

/** An init container exits 1 on every start (Init:CrashLoopBackOff); a rollout ships one that succeeds. */
export const initFails: Story = {
  name: "init-fails",
  description: "the init container of api exits 1 on every start; a rollout fixes it",
  nodes: 1,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Deployment api whose init container migrate exits 1",
      run: (cluster) =>
        cluster.apply(
          app("api", 2, sh("api", 'echo "api started"; exec sleep 3600'), {
            annotations: INIT_CRASH,
            spec: {
              initContainers: [sh("migrate", 'echo "migrate: schema version 41 is newer than this release"; exit 1')],
            },
          }),
        ),
    },
    {
      t: 360,
      say: "kubectl apply: api with a migrate step that succeeds",
      run: (cluster) =>
        cluster.apply(
          app("api", 2, sh("api", 'echo "api started"; exec sleep 3600'), {
            spec: { initContainers: [sh("migrate", 'echo "migrate: schema up to date"')] },
          }),
        ),
    },
  ],
  fixedAt: 360,
  lengthSeconds: 660,
  quick: { at: [0, 360], fixedAt: 360, lengthSeconds: 600 },
  realNode: "together",
};

/** A ConfigMap exists, but without the key a container's environment names (CreateContainerConfigError). */
export const configMapKeyMissing: Story = {
  name: "configmap-key-missing",
  description: "api reads LOG_LEVEL from key level of ConfigMap api-config, which has no such key; the key is added",
  nodes: 1,
  steps: [
    {
      t: 0,
      say: "kubectl apply: ConfigMap api-config (without key level) and Deployment api reading it",
      run: (cluster) => {
        cluster.apply(configMap({ mode: "live" }));
        cluster.apply(
          app(
            "api",
            2,
            sh("api", 'echo "api started at level $LOG_LEVEL"; exec sleep 3600', {
              env: [{ name: "LOG_LEVEL", valueFrom: { configMapKeyRef: { name: "api-config", key: "level" } } }],
            }),
          ),
        );
      },
    },
    {
      t: 300,
      say: "kubectl apply: api-config with key level",
      run: (cluster) => cluster.apply(configMap({ mode: "live", level: "info" })),
    },
  ],
  fixedAt: 300,
  lengthSeconds: 600,
  quick: { at: [0, 300], fixedAt: 300, lengthSeconds: 540 },
  realNode: "together",
};

function configMap(data: Record<string, string>): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: NS, name: "api-config" }, data };
}

/** What postgres prints before it exits 1 on every start. */
const PANIC = "PANIC:  could not locate a valid checkpoint record";

/**
 * A crash-looping database refusing its clients (issue 50): StatefulSet postgres behind a headless Service
 * crash-loops; checkout and cart, started once it does, dial its pod's IP (what the Service's name resolves to)
 * and exit refused. Their failures are the database's doing: one incident, rooted at the StatefulSet. It is
 * repaired in place, and so its clients start again.
 */
export const dependencyCrashLoop: Story = {
  name: "dependency-crash-loop",
  description: "postgres crash-loops; checkout and cart exit refused at its pod's IP; postgres is repaired",
  nodes: 1,
  steps: [
    {
      t: 0,
      say: "kubectl apply: headless Service postgres and StatefulSet postgres, which exits 1 on every start",
      run: (cluster) => {
        cluster.apply(service("postgres", { clusterIP: "None", ports: [{ name: "postgres", port: 5432 }] }));
        cluster.apply({
          apiVersion: "apps/v1",
          kind: "StatefulSet",
          metadata: { namespace: NS, name: "postgres" },
          spec: {
            replicas: 1,
            serviceName: "postgres",
            selector: { matchLabels: { app: "postgres" } },
            template: {
              // The simulated kubelet's model of it: exits on every start from the first.
              metadata: { labels: { app: "postgres" }, annotations: fate("crash", `${PANIC}\n`) },
              spec: {
                terminationGracePeriodSeconds: 5,
                containers: [
                  sh(
                    "postgres",
                    `if ${between(cluster, 0, 2)}; then echo "${PANIC}"; exit 1; fi; echo "database system is ready"; exec httpd -f -p 5432`,
                  ),
                ],
              },
            },
          },
        });
      },
    },
    {
      t: 60,
      say: "kubectl apply: Deployments checkout and cart, which dial postgres at its pod's IP on start",
      run: (cluster) => {
        const db = cluster.podsOf("postgres")[0];
        const ip = String(db?.status?.podIP ?? "10.244.0.9");
        for (const name of ["checkout", "cart"]) {
          const refused = `Error: dial tcp ${ip}:5432: connect: connection refused`;
          cluster.apply(
            app(
              name,
              1,
              sh(
                name,
                `if nc -w 3 ${ip} 5432 </dev/null; then echo "connected to ${ip}:5432"; exec sleep 3600; fi; echo "${refused}"; exit 1`,
              ),
              { annotations: fate("crash", `${refused}\n`) },
            ),
          );
        }
      },
    },
    {
      t: 420,
      say: "postgres is repaired in place: its next start stays up, and so do its clients'",
      run: (cluster) => {
        for (const pod of cluster.podsOf("postgres")) setFate(cluster, pod.metadata.name, undefined);
        for (const name of ["checkout", "cart"]) setFates(cluster, name, undefined);
      },
    },
  ],
  fixedAt: 420,
  lengthSeconds: 1_200,
  quick: { at: [0, 60, 420], fixedAt: 420, lengthSeconds: 1_080 },
  realNode: "together",
};

/** Healthy churn: a rollout, scaling up and down, a Job completing, a graceful deletion. Nothing to tell. */
export const healthyChurn: Story = {
  name: "healthy-churn",
  description: "web rolls out, scales up and down, a backup Job completes and a pod is deleted: nothing fails",
  nodes: 1,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Service web and Deployment web (2 pods, readiness probe)",
      run: (cluster) => {
        cluster.apply(service("web"));
        cluster.apply(web(2, "1"));
      },
    },
    { t: 60, say: "kubectl apply: web version 2 (a rollout)", run: (cluster) => cluster.apply(web(2, "2")) },
    { t: 150, say: "kubectl scale deployment/web --replicas=4", run: (cluster) => cluster.apply(web(4, "2")) },
    { t: 210, say: "kubectl scale deployment/web --replicas=1", run: (cluster) => cluster.apply(web(1, "2")) },
    {
      t: 240,
      say: "kubectl apply: Job backup, which completes",
      run: (cluster) =>
        cluster.apply({
          apiVersion: "batch/v1",
          kind: "Job",
          metadata: { namespace: NS, name: "backup" },
          spec: {
            backoffLimit: 1,
            template: { spec: { restartPolicy: "Never", containers: [sh("backup", 'echo "backup written"')] } },
          },
        }),
    },
    {
      t: 270,
      say: "kubectl delete pod: web's pod (it drains and exits 0; a new one replaces it)",
      run: (cluster) => {
        for (const pod of cluster.podsOf("web")) remove(cluster, "pods", pod.metadata.name);
      },
    },
  ],
  lengthSeconds: 480,
  quick: { at: [0, 60, 150, 210, 240, 270], lengthSeconds: 480 },
  realNode: "together",
};

function web(replicas: number, version: string): KubeObject {
  return app(
    "web",
    replicas,
    sh("web", WEB, { env: [{ name: "VERSION", value: version }], readinessProbe: READY_PROBE }),
  );
}

/** A crash-looping Deployment: its process exits 1 on every start, told before what the story does to the node. */
function batch(): KubeObject {
  const output = "Error: queue credentials rejected";
  return app("batch", 1, sh("batch", `echo "${output}"; exit 1`), {
    annotations: fate("crash", `${output}\n`),
    // It stays bound to its node through a loss (its replacement could go nowhere else): its crash loop is its own.
    spec: { tolerations: [{ key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" }] },
  });
}

/**
 * A kubelet restart, not a reboot (issue 50): the node stays Ready, its containers keep running; the crash
 * loop told before it is neither told again nor resolved by it, and the healthy pods are no news.
 */
export const kubeletRestart: Story = {
  name: "kubelet-restart",
  description: "the kubelet of the node runs web and a crash-looping batch restarts; nothing new is true",
  nodes: 1,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Service web and Deployment web (2 pods), Deployment batch (exits 1 on every start)",
      run: (cluster) => {
        cluster.apply(service("web"));
        cluster.apply(web(2, "1"));
        cluster.apply(batch());
      },
    },
    {
      t: 180,
      say: "the node's kubelet restarts (systemctl restart kubelet)",
      run: (c) => c.restartKubelet("worker-1"),
    },
  ],
  lengthSeconds: 420,
  quick: { at: [0, 180], lengthSeconds: 420 },
  realNode: "alone",
};

/**
 * The node lost for real (issue 50): its kubelet stopped with the node lifecycle controller on — Unknown after
 * the grace period, tainted, its web pods evicted a minute later and their replacements left nowhere to go; it
 * pages after 5 minutes down. A crash loop that began long before keeps its own thread through the loss and
 * after. The kubelet is started again: the node resolves once it is Ready and web runs again.
 */
export const realNodeLost: Story = {
  name: "node-lost-kubelet-stopped",
  description: "the node's kubelet is stopped for 7.5 minutes with web and a crash-looping batch on it; it returns",
  nodes: 1,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Service web, Deployment web (2 pods, evicted a minute after their node is lost), batch",
      run: (cluster) => {
        cluster.apply(service("web"));
        cluster.apply(
          app("web", 2, sh("web", WEB, { readinessProbe: READY_PROBE }), {
            spec: {
              tolerations: ["unreachable", "not-ready"].map((key) => ({
                key: `node.kubernetes.io/${key}`,
                operator: "Exists",
                effect: "NoExecute",
                tolerationSeconds: 60,
              })),
            },
          }),
        );
        cluster.apply(batch());
      },
    },
    { t: 150, say: "the node's kubelet is stopped", run: (cluster) => cluster.stopKubelet("worker-1") },
    { t: 600, say: "the node's kubelet is started again", run: (cluster) => cluster.startKubelet("worker-1") },
  ],
  fixedAt: 600,
  lengthSeconds: 900,
  quick: { at: [0, 150, 600], fixedAt: 600, lengthSeconds: 900 },
  realNode: "alone",
};
