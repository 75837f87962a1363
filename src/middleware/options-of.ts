/**
 * @module
 * The type of a built-in middleware's options, from the one description of them: the zod schema in
 * its folder's `options.ts` (which a config file is checked against, and which the JSON Schema and
 * docs/middleware.md are generated from). Types only: importing it costs nothing at run time, so a
 * middleware reads its options' type without loading zod.
 */
import type * as z from 'zod';

/** `T` readonly all the way down (functions as they are): callers may pass readonly arrays and records. */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer Item)[]
    ? readonly DeepReadonly<Item>[]
    : T extends object
      ? { readonly [Key in keyof T]: DeepReadonly<T[Key]> }
      : T;

/** A built-in's options as a config file and code both write them: what its schema accepts. */
export type OptionsOf<Schema extends z.ZodType> = DeepReadonly<z.input<Schema>>;
