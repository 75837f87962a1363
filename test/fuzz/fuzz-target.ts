import fc from 'fast-check';

/**
 * One thing that reads bytes from a peer, fuzzed: generated inputs (`arbitrary`, grammar-aware:
 * valid messages mutated, split at every offset, huge numbers, deep nesting, invalid UTF-8,
 * duplicate and `__proto__` keys) are fed to `check`, which throws (or rejects) when an invariant
 * breaks: a crash, a hang (each input is bounded in time), a request answered twice or not at all,
 * the wrong error, a buffer that grew without bound, the next valid message not served.
 */
export interface FuzzTarget<T> {
  /** Short and unique, e.g. `line-framing`; `npm run fuzz -- --target <part>` picks by it. */
  readonly name: string;
  /** What every input must satisfy, one sentence (shown in test names and the fuzz report). */
  readonly invariant: string;
  readonly arbitrary: fc.Arbitrary<T>;
  /** Prepares what the checks need (a server, a session), once per run of many inputs. */
  open(): FuzzCheck<T> | Promise<FuzzCheck<T>>;
  /** Inputs in the seeded short run of `npm test` (default 200): keep the target's test under ~5 s. */
  readonly quickRuns?: number;
  /** Longest one input may take before it counts as a hang (default 5000 ms). */
  readonly inputTimeoutMs?: number;
}

/** A prepared target: checks inputs one at a time, then releases what it holds. */
export interface FuzzCheck<T> {
  /** Feeds one input; throws (or rejects) with a message saying which invariant broke. */
  check(input: T): void | Promise<void>;
  /** Releases everything `open` made (servers, sockets, timers, temp files). */
  close?(): void | Promise<void>;
}

/** How long and from where a run goes. */
export interface FuzzRunOptions {
  readonly runs: number;
  readonly seed: number;
  /** Stop early (not a failure) after this long, ms. */
  readonly timeLimitMs?: number;
}

/** What one run found. */
export interface FuzzReport {
  readonly name: string;
  readonly invariant: string;
  /** Inputs checked. */
  readonly runs: number;
  readonly ms: number;
  readonly seed: number;
  /** Whether the time limit ended the run before `runs`. */
  readonly interrupted: boolean;
  /** fast-check's report of the smallest failing input (with the seed and path to replay it); undefined: none failed. */
  readonly failure: string | undefined;
}

/** A target with its input type erased, as `*.fuzz.ts` files export them (`fuzzTargets`). */
export interface RunnableFuzzTarget {
  readonly name: string;
  readonly invariant: string;
  readonly quickRuns: number;
  run(options: FuzzRunOptions): Promise<FuzzReport>;
}

/**
 * Makes a target runnable: every `test/fuzz/*.fuzz.ts` exports `fuzzTargets`, a list of these, and
 * both `npm test` (seeded, `quickRuns` inputs) and `npm run fuzz` (a million) find them there.
 */
export function defineFuzzTarget<T>(target: FuzzTarget<T>): RunnableFuzzTarget {
  return {
    name: target.name,
    invariant: target.invariant,
    quickRuns: target.quickRuns ?? 200,
    run: (options) => runTarget(target, options),
  };
}

async function runTarget<T>(target: FuzzTarget<T>, options: FuzzRunOptions): Promise<FuzzReport> {
  const fixture = await target.open();
  const started = performance.now();
  try {
    const property = fc.asyncProperty(target.arbitrary, async (input) => {
      await fixture.check(input);
    });
    const details = await fc.check(property, {
      numRuns: options.runs,
      seed: options.seed,
      timeout: target.inputTimeoutMs ?? 5000,
      includeErrorInReport: true,
      ...(options.timeLimitMs === undefined ? {} : { interruptAfterTimeLimit: options.timeLimitMs }),
    });
    return {
      name: target.name,
      invariant: target.invariant,
      runs: details.numRuns,
      ms: Math.round(performance.now() - started),
      seed: options.seed,
      interrupted: details.interrupted,
      failure: details.failed ? (fc.defaultReportMessage(details) ?? 'failed') : undefined,
    };
  } finally {
    await fixture.close?.();
  }
}
