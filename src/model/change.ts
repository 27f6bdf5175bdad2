import type { ObjectRef } from "./object-ref.ts";

/**
 * One change to an object before its incident began (issue 32 "what changed"):
 * - `rollout`: a Deployment's new ReplicaSet, with the difference of its pod template;
 * - `spec`: the object's spec written (managedFields: who and when, not what);
 * - `created`: the object was created;
 * - `deleted`: a ConfigMap or Secret was deleted;
 * - `restarted`: a node restarted (its bootID changed).
 */
export interface Change {
  readonly object: ObjectRef;
  readonly kind: "rollout" | "spec" | "created" | "deleted" | "restarted";
  /** Who wrote it: the managedFields manager (helm, argocd, kubectl-client-side-apply, a controller …). */
  readonly manager?: string;
  /** When, epoch ms. */
  readonly at: number;
  /** What, one short line each (an image tag, an env reference, a resource, the revision); never a Secret's value. */
  readonly what: readonly string[];
}

/**
 * What changed before an incident began: the last change of its root and the root's owner chain, or none in
 * the window looked at. `onsetAt` is when the failure began (epoch ms); `windowMs` how far back was looked.
 */
export interface ChangeReport {
  readonly onsetAt: number;
  readonly windowMs: number;
  readonly change?: Change;
}
