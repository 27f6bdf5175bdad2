/**
 * Declared projections (issue 42): per kind, the fields mon reads, written once as a value that is both the
 * runtime projection the Inventory's door applies (kube/project.ts) and, through `Projected`, the type the
 * Inventory serves. A detector that reads a field its kind's shape does not keep does not compile.
 *
 * A shape is `true` (keep the value whole), `[shape]` (a list, each item projected by `shape`) or an object
 * of field shapes (keep those fields, drop every other).
 */
export type Shape = true | readonly [Shape] | { readonly [field: string]: Shape };

/** A shape checked against the type it projects: only fields the type has, lists where it has lists. */
export type ShapeOf<T> =
  | true
  | (NonNullable<T> extends readonly (infer U)[]
      ? readonly [ShapeOf<U>]
      : NonNullable<T> extends object
        ? { readonly [K in keyof NonNullable<T>]?: ShapeOf<NonNullable<NonNullable<T>[K]>> }
        : true);

/**
 * The type of `T` projected by shape `S`: the fields `S` names, each projected in turn, optional where `T` has
 * them optional; every other field is gone from the type as it is gone from the object.
 */
export type Projected<T, S> = S extends true
  ? T
  : S extends readonly [infer E]
    ? T extends readonly (infer U)[]
      ? readonly Projected<U, E>[]
      : never
    : {
        readonly [K in keyof T as K extends keyof S ? K : never]: K extends keyof S
          ? undefined extends T[K]
            ? Projected<NonNullable<T[K]>, S[K]> | undefined
            : Projected<T[K], S[K]>
          : never;
      };

/** Declares a shape for `T`, checked against it, keeping its literal type for `Projected`. */
export function defineShape<T>() {
  return <const S extends ShapeOf<T>>(shape: S): S => Object.freeze(shape);
}
