/** One RBAC-like rule: verbs on resources of API groups, optionally only in some namespaces. `*` matches anything. */
export interface SimRule {
  readonly groups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly namespaces?: readonly string[];
}

/** Who a request is: a user name and its rules (`all` for the admin). */
export interface SimUser {
  readonly name: string;
  readonly rules: readonly SimRule[] | "all";
}

/** What a request asks to do (the attributes of a SubjectAccessReview). */
export interface Attributes {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly namespace?: string;
}

/**
 * The simulator's authorizer (ARCHITECTURE.md: "SelfSubjectAccessReview answered from a configurable rule
 * set"): tokens map to users; a user's rules allow a request when one rule matches its verb, group, resource
 * and (if the rule names namespaces) namespace. A cluster-scope request is allowed only by a rule without
 * namespaces, as with ClusterRoles.
 */
export class SimAuthorizer {
  private readonly users = new Map<string, SimUser>();

  /** Adds (or replaces) the user behind `token`. */
  addUser(token: string, user: SimUser): void {
    this.users.set(token, user);
  }

  /** Removes every token (revocation) except those listed. */
  keepOnly(tokens: readonly string[]): void {
    for (const token of [...this.users.keys()]) if (!tokens.includes(token)) this.users.delete(token);
  }

  /** The user behind a bearer token, if any. */
  user(token: string): SimUser | undefined {
    return this.users.get(token);
  }

  /** Whether `user` may do what `attributes` describe. */
  allowed(user: SimUser, attributes: Attributes): boolean {
    if (user.rules === "all") return true;
    return user.rules.some((rule) => {
      const any = (list: readonly string[], value: string) => list.includes("*") || list.includes(value);
      if (
        !any(rule.verbs, attributes.verb) ||
        !any(rule.groups, attributes.group) ||
        !any(rule.resources, attributes.resource)
      )
        return false;
      if (!rule.namespaces) return true;
      return attributes.namespace !== undefined && any(rule.namespaces, attributes.namespace);
    });
  }
}

/** kube-apiserver's 403 message: `pods is forbidden: User "x" cannot list resource "pods" in API group "" at the cluster scope`. */
export function forbiddenMessage(user: SimUser, attributes: Attributes): string {
  const qualified = attributes.group ? `${attributes.resource}.${attributes.group}` : attributes.resource;
  const scope = attributes.namespace ? `in the namespace "${attributes.namespace}"` : "at the cluster scope";
  return `${qualified} is forbidden: User "${user.name}" cannot ${attributes.verb} resource "${attributes.resource}" in API group "${attributes.group}" ${scope}`;
}
