import { fate, NS, remove, type Story } from "./story.ts";

/** A Job whose every attempt exits 1 until its back-off limit; the user deletes it ten minutes later. */
export const jobFailsThenDeleted: Story = {
  name: "job-fails-then-deleted",
  description: "every attempt of Job migrate exits 1 until its backoffLimit; the user deletes the Job",
  nodes: 2,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Job migrate (backoffLimit 2)",
      run: (cluster) =>
        cluster.apply({
          apiVersion: "batch/v1",
          kind: "Job",
          metadata: { namespace: NS, name: "migrate" },
          spec: {
            backoffLimit: 2,
            template: {
              metadata: { annotations: fate("fail", 'Error: relation "orders" does not exist\n') },
              spec: { restartPolicy: "Never", containers: [{ name: "migrate", image: "registry.example/migrate:7" }] },
            },
          },
        }),
    },
    { t: 900, say: "kubectl delete job migrate", run: (cluster) => remove(cluster, "jobs", "migrate", "batch") },
  ],
  fixedAt: 900,
  lengthSeconds: 1_200,
};
