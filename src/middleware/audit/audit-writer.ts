/**
 * @module
 * `AuditWriter`: a bounded in-memory queue of JSON lines drained by one async writer into a file
 * that is rotated by size and by age. Pushing never waits for the disk; when the queue is full the
 * line is dropped and counted, the count is logged at most once per interval, and written to the
 * file as a `{"time":…,"dropped":N}` line once the writer catches up.
 */
import { open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from '../../log/logger.js';
import { LineSlabs, type Slab } from './line-slabs.js';

export interface AuditWriterOptions {
  /** The JSONL file to append to. */
  readonly file: string;
  /** Rotate before a line would take the file past this many bytes. Default: never. */
  readonly maxBytes?: number | undefined;
  /** Rotate when the file has been written to for this long (counted from the first line this writer wrote to it). Default: never. */
  readonly maxAgeMs?: number | undefined;
  /** How many rotated files to keep (the oldest are deleted). Default 10. */
  readonly keep?: number | undefined;
  /** How many lines may wait for the disk. Default 10 000. */
  readonly maxQueue?: number | undefined;
  /** Dropped lines are logged at most once per this many milliseconds. Default 10 000. */
  readonly dropReportMs?: number | undefined;
  /**
   * How long a record may wait in memory for others to share its write, ms: one write per
   * interval rather than one per call. A crash (not a shutdown: `flush()` and `close()` write at
   * once) loses at most this window. Default 50; 0 writes as soon as the disk is free.
   */
  readonly flushIntervalMs?: number | undefined;
  /** Where drops and write failures are reported (at `warn`). */
  readonly logger: Logger;
  /** The clock (ms since the epoch). For tests. */
  readonly now?: (() => number) | undefined;
  /** Appends text to a file. For tests (a slow disk). Default: a handle kept open in append mode. */
  readonly append?: ((file: string, text: string) => Promise<void>) | undefined;
}

/** How often (ms) the writer checks that the path still names the file it holds open (moved or deleted by logrotate, say). */
const RECHECK_MS = 1000;

/** The rotated files of `file`: `<file>.<ISO time with ":" as "-">[.<n>]`. */
const ROTATED = /^\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z(\.\d+)?$/;

/** The queue and its writer. */
export class AuditWriter {
  readonly #file: string;
  readonly #maxBytes: number;
  readonly #maxAgeMs: number;
  readonly #keep: number;
  readonly #maxQueue: number;
  readonly #dropReportMs: number;
  readonly #flushIntervalMs: number;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #append: ((file: string, text: string) => Promise<void>) | undefined;

  /**
   * Lines waiting for the disk, already UTF-8 in large slabs (where a line kept as a string built
   * from parts is a tree of strings the collector would copy while it waits).
   */
  #queue = new LineSlabs();
  #draining: Promise<void> | undefined;
  /** The timer that starts the next drain, while records wait for the interval. */
  #timer: NodeJS.Timeout | undefined;
  /** Dropped since the last `dropped` line was written. */
  #dropped = 0;
  /** Dropped since the last report on the logger. */
  #unreported = 0;
  #lastReport = Number.NEGATIVE_INFINITY;
  /** What this writer knows of the current file; `undefined` until the first write. */
  #size: number | undefined;
  #openedAt = 0;
  #failed = false;
  /** The file, open for appending, from the first write until rotation, a failure or `close()`. */
  #handle: FileHandle | undefined;
  /** When the path was last found to name the open file. */
  #checkedAt = Number.NEGATIVE_INFINITY;

  constructor(options: AuditWriterOptions) {
    this.#file = options.file;
    this.#maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
    this.#maxAgeMs = options.maxAgeMs ?? Number.POSITIVE_INFINITY;
    this.#keep = options.keep ?? 10;
    this.#maxQueue = options.maxQueue ?? 10_000;
    this.#dropReportMs = options.dropReportMs ?? 10_000;
    this.#flushIntervalMs = options.flushIntervalMs ?? 50;
    this.#log = options.logger;
    this.#now = options.now ?? Date.now;
    this.#append = options.append;
  }

  /** Lines dropped so far that are not yet written as a `dropped` line. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Queues one line (without its newline); never waits. */
  push(line: string): void {
    if (this.#queue.count >= this.#maxQueue) {
      this.#drop(1, 'the queue is full (is the disk stalled?)');
      return;
    }
    this.#queue.push(line);
    if (this.#draining !== undefined || this.#timer !== undefined) return;
    if (this.#flushIntervalMs <= 0) this.#draining = this.#drain();
    else this.#timer = setTimeout(this.#startDrain, this.#flushIntervalMs);
  }

  readonly #startDrain = (): void => {
    this.#timer = undefined;
    this.#draining ??= this.#drain();
  };

  /** Resolves when every line queued so far (and the count of dropped ones) is on disk. */
  async flush(): Promise<void> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#startDrain();
    }
    while (this.#draining) await this.#draining;
    // Left by a write that failed: one more try.
    if (this.#queue.count > 0 || this.#dropped > 0) await (this.#draining ??= this.#drain());
    if (this.#unreported > 0) this.#report();
  }

  /** Flushes, then closes the file (a later `push` opens it again). */
  async close(): Promise<void> {
    await this.flush();
    await this.#release();
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.count > 0 || this.#dropped > 0) {
        const count = this.#queue.count;
        const records = this.#queue.take();
        const carried = this.#dropped;
        this.#dropped = 0;
        const batch = carried > 0 ? [droppedLine(this.#now(), carried), ...records] : records;
        if (await this.#write(batch)) continue;
        // Not written: counted, and tried again with the next record (not in a loop).
        this.#dropped += carried;
        this.#drop(count, 'the file cannot be written');
        break;
      }
    } finally {
      this.#draining = undefined;
    }
  }

  /** Writes the slabs' lines, rotating between two lines where the size or the age says so. */
  async #write(slabs: readonly Slab[]): Promise<boolean> {
    try {
      if (this.#size === undefined) {
        this.#size = await stat(this.#file).then((stats) => stats.size, () => 0);
        this.#openedAt = this.#now();
      }
      const now = this.#now();
      for (const { bytes, ends } of slabs) {
        // Bytes [from, start) of this slab are written next; the line being looked at is [start, end).
        let from = 0;
        let start = 0;
        for (const end of ends) {
          const size = this.#size + (start - from);
          const old = now - this.#openedAt >= this.#maxAgeMs;
          if (size > 0 && (size + (end - start) > this.#maxBytes || old)) {
            if (start > from) await this.#appendBytes(bytes.subarray(from, start));
            this.#size += start - from;
            from = start;
            await this.#rotate();
          }
          start = end;
        }
        if (start > from) await this.#appendBytes(bytes.subarray(from, start));
        this.#size += start - from;
      }
      this.#failed = false;
      return true;
    } catch (error) {
      this.#size = undefined;
      await this.#release();
      if (!this.#failed) this.#log.warn(`audit: cannot write ${this.#file}: ${error instanceof Error ? error.message : String(error)}`);
      this.#failed = true;
      return false;
    }
  }

  /**
   * Appends through a handle kept open (one write per batch, not an open and a close as well),
   * reopened when the path no longer names the file it holds (checked at most once a second), so a
   * file moved away by another program is not written to forever.
   */
  async #appendBytes(bytes: Buffer): Promise<void> {
    if (this.#append !== undefined) return this.#append(this.#file, bytes.toString('utf8'));
    const now = this.#now();
    if (this.#handle !== undefined && now - this.#checkedAt >= RECHECK_MS) {
      const size = await this.#sizeIfStillOpen(this.#handle);
      if (size === undefined) {
        await this.#release();
        this.#size = await stat(this.#file).then((stats) => stats.size, () => 0);
      }
      this.#checkedAt = now;
    }
    if (this.#handle === undefined) {
      this.#handle = await open(this.#file, 'a');
      this.#checkedAt = now;
    }
    await this.#handle.appendFile(bytes);
  }

  /** The file's size if the path still names the open file; `undefined` if it was moved, replaced or deleted. */
  async #sizeIfStillOpen(handle: FileHandle): Promise<number | undefined> {
    try {
      const [held, named] = await Promise.all([handle.stat(), stat(this.#file)]);
      return held.ino === named.ino && held.dev === named.dev ? named.size : undefined;
    } catch {
      return undefined;
    }
  }

  async #release(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close().catch(() => undefined);
  }

  async #rotate(): Promise<void> {
    await this.#release();
    const stamp = new Date(this.#now()).toISOString().replaceAll(':', '-');
    let target = `${this.#file}.${stamp}`;
    for (let n = 1; await exists(target); n++) target = `${this.#file}.${stamp}.${n}`;
    await rename(this.#file, target);
    this.#size = 0;
    this.#openedAt = this.#now();
    const dir = dirname(this.#file);
    const base = basename(this.#file);
    const rotated = (await readdir(dir))
      .filter((name) => name.startsWith(base) && ROTATED.test(name.slice(base.length)))
      .sort(byStamp);
    for (const name of rotated.slice(0, Math.max(0, rotated.length - this.#keep))) await unlink(join(dir, name)).catch(() => undefined);
  }

  #drop(count: number, why: string): void {
    this.#dropped += count;
    this.#unreported += count;
    if (this.#now() - this.#lastReport >= this.#dropReportMs) this.#report(why);
  }

  #report(why = 'the queue was full'): void {
    this.#log.warn(`audit: ${this.#unreported} record(s) dropped: ${why}`, { file: this.#file, dropped: this.#unreported });
    this.#unreported = 0;
    this.#lastReport = this.#now();
  }
}

/** The `{"time":…,"dropped":N}` line, as a slab of its own. */
function droppedLine(time: number, dropped: number): Slab {
  const bytes = Buffer.from(`${JSON.stringify({ time: new Date(time).toISOString(), dropped })}\n`, 'utf8');
  return { bytes, ends: [bytes.length] };
}

/** Older first: by time stamp, then by the collision number. */
function byStamp(a: string, b: string): number {
  const key = (name: string): [string, number] => {
    const match = /^(.*Z)(?:\.(\d+))?$/.exec(name);
    return [match?.[1] ?? name, Number(match?.[2] ?? 0)];
  };
  const [stampA, nA] = key(a);
  const [stampB, nB] = key(b);
  return stampA < stampB ? -1 : stampA > stampB ? 1 : nA - nB;
}

function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
