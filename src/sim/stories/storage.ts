import { deployment, NS, service, type Story } from "./story.ts";

/**
 * Issue 28, observation 3: a Deployment's claim stays Pending (no volume yet), so its pod cannot be scheduled;
 * the claim binds ten minutes later and the pod starts.
 */
export const claimBinds: Story = {
  name: "claim-binds",
  description: "a Deployment's claim is Pending for ten minutes, so its pod cannot be scheduled; then it binds",
  nodes: 2,
  steps: [
    {
      t: 0,
      say: "kubectl apply: StorageClass standard (default), claim data, Service db and Deployment db",
      run: (cluster) => {
        cluster.apply({
          apiVersion: "storage.k8s.io/v1",
          kind: "StorageClass",
          metadata: { name: "standard", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
          provisioner: "csi.example.com",
          volumeBindingMode: "Immediate",
        });
        cluster.apply({
          apiVersion: "v1",
          kind: "PersistentVolumeClaim",
          metadata: { namespace: NS, name: "data" },
          spec: {
            accessModes: ["ReadWriteOnce"],
            storageClassName: "standard",
            resources: { requests: { storage: "10Gi" } },
          },
          status: { phase: "Pending" },
        });
        cluster.apply(service("db"));
        cluster.apply(
          deployment("db", "registry.example/db:16", 1, {
            spec: { volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data" } }] },
          }),
        );
      },
    },
    {
      t: 600,
      say: "the provisioner binds claim data",
      run: (cluster) => cluster.bindClaim("data"),
    },
  ],
  fixedAt: 600,
  lengthSeconds: 1_000,
  quick: { at: [0, 420], fixedAt: 420, lengthSeconds: 600 },
};
