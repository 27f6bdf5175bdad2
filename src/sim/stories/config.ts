import { BUSYBOX, deployment, NS, service, sh, type Story } from "./story.ts";

const mountsConfig = (name: string) => ({
  spec: {
    containers: [
      sh(name, `echo "${name} started"; exec sleep 3600`, {
        volumeMounts: [{ name: "config", mountPath: "/etc/api" }],
      }),
    ],
    volumes: [{ name: "config", configMap: { name: "api-config" } }],
  },
});

/**
 * Issue 28, observation 3: pods mounting a ConfigMap that does not exist wait in ContainerCreating (FailedMount
 * events every retry); the ConfigMap is created and they start.
 */
export const configMapVolumeAppears: Story = {
  name: "configmap-volume-appears",
  description: "two Deployments mount a missing ConfigMap; it is created seven minutes later and their pods start",
  nodes: 2,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Service api, Deployments api (2 pods) and web mounting ConfigMap api-config",
      run: (cluster) => {
        cluster.apply(service("api"));
        cluster.apply(deployment("api", BUSYBOX, 2, mountsConfig("api")));
        cluster.apply(deployment("web", BUSYBOX, 1, mountsConfig("web")));
      },
    },
    {
      t: 420,
      say: "kubectl create configmap api-config",
      run: (cluster) =>
        cluster.apply({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { namespace: NS, name: "api-config" },
          data: { mode: "live" },
        }),
    },
  ],
  fixedAt: 420,
  lengthSeconds: 900,
  quick: { at: [0, 420], fixedAt: 420, lengthSeconds: 600 },
  realNode: "together",
};

/** A Deployment whose environment names a Secret key that does not exist (CreateContainerConfigError). */
export const secretEnvMissing: Story = {
  name: "secret-env-missing",
  description: "a Deployment reads DB_PASSWORD from a Secret that does not exist; the Secret is created",
  nodes: 2,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Deployment api with env DB_PASSWORD from Secret db-credentials",
      run: (cluster) =>
        cluster.apply(
          deployment("api", BUSYBOX, 2, {
            spec: {
              containers: [
                sh("api", 'echo "api started"; exec sleep 3600', {
                  env: [
                    { name: "DB_PASSWORD", valueFrom: { secretKeyRef: { name: "db-credentials", key: "password" } } },
                  ],
                }),
              ],
            },
          }),
        ),
    },
    {
      t: 420,
      say: "kubectl create secret generic db-credentials --from-literal=password=…",
      run: (cluster) =>
        cluster.apply({
          apiVersion: "v1",
          kind: "Secret",
          metadata: { namespace: NS, name: "db-credentials" },
          type: "Opaque",
          data: { password: "czNjcjN0" },
        }),
    },
  ],
  fixedAt: 420,
  lengthSeconds: 900,
  quick: { at: [0, 420], fixedAt: 420, lengthSeconds: 600 },
  realNode: "together",
};
