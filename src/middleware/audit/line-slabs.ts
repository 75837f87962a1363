/**
 * @module
 * `LineSlabs`: lines of text packed as UTF-8 into large Buffers as they come, each line's end
 * remembered. A line costs one encoding into the current slab: no Buffer or string per line
 * survives to be copied by the collector while it waits, and a slab is written as it is.
 */

/** One slab: its bytes, and where each of its lines ends (the offset after its newline). */
export interface Slab {
  readonly bytes: Buffer;
  readonly ends: readonly number[];
}

const SLAB_BYTES = 64 * 1024;

interface OpenSlab {
  bytes: Buffer;
  used: number;
  ends: number[];
}

/** Lines (each stored with its newline) in slabs, in order. */
export class LineSlabs {
  #full: Slab[] = [];
  #open: OpenSlab | undefined;
  #count = 0;

  /** How many lines wait. */
  get count(): number {
    return this.#count;
  }

  /** Adds `line` and a newline. */
  push(line: string): void {
    // At most 3 bytes per UTF-16 code unit, and the newline.
    const most = line.length * 3 + 1;
    let open = this.#open;
    if (open === undefined || open.bytes.length - open.used < most) {
      if (open !== undefined && open.used > 0) this.#full.push(sealed(open));
      open = this.#open = { bytes: Buffer.allocUnsafe(Math.max(SLAB_BYTES, most)), used: 0, ends: [] };
    }
    open.used += open.bytes.write(line, open.used, 'utf8');
    open.bytes[open.used++] = 0x0a;
    open.ends.push(open.used);
    this.#count++;
  }

  /** Hands over every line so far, in slabs, and starts empty. */
  take(): Slab[] {
    const slabs = this.#full;
    if (this.#open !== undefined && this.#open.used > 0) slabs.push(sealed(this.#open));
    this.#full = [];
    this.#open = undefined;
    this.#count = 0;
    return slabs;
  }
}

function sealed(open: OpenSlab): Slab {
  return { bytes: open.bytes.subarray(0, open.used), ends: open.ends };
}
