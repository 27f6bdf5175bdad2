import type { StoryPlace } from "../sim/standin/story-cluster.ts";
import type { Told } from "./replay.ts";

/**
 * Which of one daemon's messages are about which story, when several stories (and other tests) share a cluster:
 * each story has a place — its namespace, its nodes — and a message is a place's when the incidents it names are.
 */

/** What names a place's objects: its namespace, its nodes' prefix and the nodes it runs on by name. */
export type Place = Pick<StoryPlace, "namespace" | "nodePrefix" | "nodes">;

/**
 * The messages about `place` among `told` (a summary covering several places counts for each, with only its own
 * covers). `known` is every place sharing the cluster, `place` among them.
 */
export function mineOf(told: readonly Told[], place: Place, known: readonly Place[]): Told[] {
  const mine = minePredicate(told, place, known);
  return told.flatMap((m) => {
    const covers = m.covers?.filter(mine);
    if (covers?.length) return [{ ...m, covers }];
    return m.incidentId && mine(m.incidentId) ? [m] : [];
  });
}

/** The messages of `told` about none of the `known` places. */
export function unplacedOf(told: readonly Told[], known: readonly Place[]): Told[] {
  const places = known.map((p) => minePredicate(told, p, known));
  return told.filter((m) => places.every((mine) => !(m.covers?.some(mine) || (m.incidentId && mine(m.incidentId)))));
}

/** Whether an incident id names the place's namespace (an in-cluster host `svc.<namespace>:port` too) or nodes. */
export function belongsTo(id: string, place: Place): boolean {
  return (
    id === `Namespace//${place.namespace}` ||
    id.includes(`/${place.namespace}/`) ||
    id.includes(`.${place.namespace}:`) ||
    id.startsWith(`Node//${place.nodePrefix}-worker-`) ||
    Object.values(place.nodes ?? {}).some((node) => id === `Node//${node}`)
  );
}

/**
 * Whether an incident id is the place's, among `told`: by the namespace or nodes it names, or — a shared error's
 * id (its line) and an outside host's endpoint name no place — once a message of it names the place's workloads
 * (its announcement does, alone or in a roll-up; its resolve may not). In a summary only the incident's own line
 * counts: a roll-up names every place's workloads that started together.
 */
function minePredicate(told: readonly Told[], place: Place, known: readonly Place[]): (id: string) => boolean {
  const names = (text: string) => text.includes(` ${place.namespace}/`);
  const isNameless = (id: string) => /^(Error|Endpoint)\/\//.test(id) && !known.some((p) => belongsTo(id, p));
  const nameless = new Set<string>();
  for (const m of told) {
    if (m.incidentId && isNameless(m.incidentId) && names(m.text)) nameless.add(m.incidentId);
    // A summary's text is its title, a note and one bullet per incident it covers, in `covers` order
    // (src/notify/summary.ts).
    const bullets = m.text.split("\n").filter((line) => line.startsWith("• "));
    for (const [k, id] of (m.covers ?? []).entries())
      if (isNameless(id) && bullets[k] !== undefined && names(bullets[k])) nameless.add(id);
  }
  return (id) => belongsTo(id, place) || nameless.has(id);
}
