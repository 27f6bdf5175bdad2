import type { KubeObject } from "../store.ts";
import { withCondition } from "./api.ts";
import type { Controller } from "./controller.ts";

/** The ConfigMap the control plane publishes into every namespace: its CA, which service-account volumes project. */
export const ROOT_CA_CONFIGMAP = "kube-root-ca.crt";

/**
 * kube-controller-manager's root CA publisher: the cluster CA as ConfigMap `kube-root-ca.crt` in a namespace that
 * has none, written by `kube-controller-manager` (a pod's service-account volume cannot be mounted before it is
 * there: seen on the real node, issue 50).
 */
function publishRootCa(api: Parameters<Controller["sync"]>[0], namespace: string): void {
  if (api.get("ConfigMap", namespace, ROOT_CA_CONFIGMAP)) return;
  api.create(
    "ConfigMap",
    namespace,
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { namespace, name: ROOT_CA_CONFIGMAP },
      data: { "ca.crt": "-----BEGIN CERTIFICATE-----\n(the simulator's cluster CA)\n-----END CERTIFICATE-----\n" },
    },
    "kube-controller-manager",
  );
}

/**
 * The namespace controller (kube-controller-manager's, as v1.32 runs it), with its root CA publisher: a namespace
 * that exists gets `kube-root-ca.crt`; a namespace being deleted is
 * `Terminating`; everything in it is deleted — pods with their grace period, so their kubelet stops them first —
 * its conditions say what remains, and once nothing is left the namespace itself goes.
 */
export const namespaceController: Controller = {
  name: "namespace",
  sync(api) {
    const now = api.now();
    for (const namespace of api.list("Namespace")) {
      if (!namespace.metadata.deletionTimestamp) {
        publishRootCa(api, namespace.metadata.name);
        continue;
      }
      const content = api.contentOf(namespace.metadata.name);
      if (content.length === 0) {
        // Said once more, then the namespace goes.
        api.setStatus(namespace, {
          ...namespace.status,
          conditions: withCondition(
            namespace.status?.conditions,
            {
              type: "NamespaceContentRemaining",
              status: "False",
              reason: "ContentRemoved",
              message: "All content successfully removed",
            },
            now,
          ),
        });
        api.remove("Namespace", undefined, namespace.metadata.name);
        continue;
      }
      for (const object of content) if (!object.metadata.deletionTimestamp) api.removeObject(object);
      const remaining = [...new Set(content.map((o) => `${o.kind.toLowerCase()}s`))].sort();
      let conditions: KubeObject[] | undefined = namespace.status?.conditions;
      for (const c of [
        {
          type: "NamespaceDeletionDiscoveryFailure",
          status: "False",
          reason: "ResourcesDiscovered",
          message: "All resources successfully discovered",
        },
        {
          type: "NamespaceDeletionGroupVersionParsingFailure",
          status: "False",
          reason: "ParsedGroupVersions",
          message: "All legacy kube types successfully parsed",
        },
        {
          type: "NamespaceDeletionContentFailure",
          status: "False",
          reason: "ContentDeleted",
          message: "All content successfully deleted, may be waiting on finalization",
        },
        {
          type: "NamespaceContentRemaining",
          status: "True",
          reason: "SomeResourcesRemain",
          message: `Some resources are remaining: ${remaining.map((r) => `${r} has ${content.filter((o) => `${o.kind.toLowerCase()}s` === r).length} resource instances`).join(", ")}`,
        },
        {
          type: "NamespaceFinalizersRemaining",
          status: "False",
          reason: "ContentHasNoFinalizers",
          message: "All content-preserving finalizers finished",
        },
      ])
        conditions = withCondition(conditions, c, now);
      api.setStatus(namespace, { ...namespace.status, phase: "Terminating", conditions });
    }
    return undefined;
  },
};
