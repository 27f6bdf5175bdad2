/**
 * The edition mon runs as (spec 1.10): Pro settings take effect only in `pro`. The license decides it at
 * startup and while running (docs/license.md); tests of Pro behaviour may fix it at the composition root.
 */
export type Edition = "community" | "pro";
