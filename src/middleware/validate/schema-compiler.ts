/**
 * @module
 * Tool schemas compiled into validators with ajv: JSON Schema 2020-12 (the MCP default when a
 * schema has no `$schema`) and draft-07 (when it says so), formats from ajv-formats. Compiled
 * validators are shared between sessions by the schema's text, so a thousand HTTP sessions of the
 * same server compile each tool once.
 */
import type { Ajv, ErrorObject, Logger as AjvLogger, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { AjvEngines } from './ajv-engines.js';

/** A schema's verdict on one value: `undefined` when valid, else ajv's errors. */
export type Check = (value: unknown) => readonly ErrorObject[] | undefined;

/** A compiled schema, or why it did not compile. */
export type Compiled = { ok: true; check: Check } | { ok: false; reason: string };

export interface SchemaCompilerOptions {
  /** A schema that uses a format ajv-formats does not know does not compile. Default false: the format is ignored. */
  strict?: boolean;
  /** Compiled schemas kept for reuse, least recently used dropped first. Default 1000. */
  maxCached?: number;
}

const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;

type Engine = Ajv | Ajv2020;

/** ajv, once loaded (by the first compiler that needs it). */
let engines: AjvEngines | undefined;
let loading: Promise<void> | undefined;

/** Compiles tool schemas; one per middleware instance. */
export class SchemaCompiler {
  readonly #strict: boolean;
  readonly #maxCached: number;
  readonly #cache = new Map<string, Compiled>();
  /** Warnings ajv logs while compiling (an unknown format), read right after each compile. */
  #warnings: string[] = [];
  #draft2020: Ajv2020 | undefined;
  #draft07: Ajv | undefined;

  constructor(options: SchemaCompilerOptions = {}) {
    this.#strict = options.strict ?? false;
    this.#maxCached = options.maxCached ?? 1000;
  }

  /**
   * Resolves once ajv is loaded (a dynamic import, the first time any compiler needs it); undefined
   * when it already is. `compile` needs it loaded.
   */
  ready(): Promise<void> | undefined {
    if (engines) return undefined;
    loading ??= import('./ajv-engines.js').then((module) => {
      engines = module.ajvEngines;
    });
    return loading;
  }

  /** The validator of `schema` (compiled once for every schema with the same text). Call after `ready()`. */
  compile(schema: unknown): Compiled {
    const key = JSON.stringify(schema);
    const cached = this.#cache.get(key);
    if (cached) {
      this.#cache.delete(key);
      this.#cache.set(key, cached);
      return cached;
    }
    const compiled = this.#compile(schema);
    this.#cache.set(key, compiled);
    if (this.#cache.size > this.#maxCached) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    return compiled;
  }

  #compile(schema: unknown): Compiled {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      return { ok: false, reason: 'the schema is not an object' };
    }
    const dialect = (schema as { $schema?: unknown }).$schema;
    let engine: Engine;
    if (dialect === undefined || (typeof dialect === 'string' && DRAFT_2020.test(dialect))) engine = this.#engine2020();
    else if (typeof dialect === 'string' && DRAFT_07.test(dialect)) engine = this.#engine07();
    else return { ok: false, reason: `unsupported $schema ${JSON.stringify(dialect)} (2020-12 and draft-07 are)` };

    this.#warnings = [];
    let validate: ValidateFunction;
    try {
      validate = engine.compile(schema);
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    } finally {
      // ajv keeps every schema it compiled (and claims its $id): drop it, the function is ours.
      engine.removeSchema(schema);
    }
    const unknownFormat = this.#warnings.find((warning) => warning.startsWith('unknown format'));
    if (this.#strict && unknownFormat !== undefined) return { ok: false, reason: unknownFormat };
    return { ok: true, check: (value) => (validate(value) ? undefined : (validate.errors ?? [])) };
  }

  #engine2020(): Ajv2020 {
    const loaded = loadedEngines();
    return (this.#draft2020 ??= withFormats(loaded, new loaded.Ajv2020(this.#options())));
  }

  #engine07(): Ajv {
    const loaded = loadedEngines();
    return (this.#draft07 ??= withFormats(loaded, new loaded.Ajv(this.#options())));
  }

  #options(): { allErrors: true; strict: false; logger: AjvLogger; validateSchema: true } {
    const warn = (...args: unknown[]): void => {
      this.#warnings.push(args.map(String).join(' '));
    };
    // Servers' schemas carry keywords of their own (strict: false ignores them); nothing is printed.
    return { allErrors: true, strict: false, validateSchema: true, logger: { log: warn, warn, error: warn } };
  }
}

function withFormats<E extends Engine>(loaded: AjvEngines, engine: E): E {
  loaded.addFormats(engine);
  return engine;
}

function loadedEngines(): AjvEngines {
  if (!engines) throw new Error('SchemaCompiler: compile() before ready() resolved');
  return engines;
}
