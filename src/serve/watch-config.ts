import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Logger } from '../log/logger.js';

/** A running watch over config files: {@link watchConfig}. */
export interface ConfigWatcher {
  /** Stops watching; no `onChange` is called after it. Idempotent. */
  close(): void;
}

export interface WatchConfigOptions {
  /** How long the files must stay quiet before `onChange` is called, ms. Default 100. */
  readonly debounceMs?: number;
  /** Where a directory that cannot be watched (any more) is reported. */
  readonly log?: Logger;
}

/**
 * Calls `onChange` once the files have changed and then stayed quiet for a moment (an editor's
 * save is often several events: truncate, write, chmod). The directories are watched, not the
 * files: an editor that saves by writing a new file and renaming it over the old one replaces the
 * file a watch on it would follow, and a file deleted and written again is still seen.
 */
export function watchConfig(files: readonly string[], onChange: () => void, options: WatchConfigOptions = {}): ConfigWatcher {
  const debounceMs = options.debounceMs ?? 100;
  const byDirectory = new Map<string, Set<string>>();
  for (const file of files.map((f) => resolve(f))) {
    const names = byDirectory.get(dirname(file)) ?? new Set<string>();
    names.add(basename(file));
    byDirectory.set(dirname(file), names);
  }
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const changed = (): void => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      if (!closed) onChange();
    }, debounceMs);
  };
  const watchers: FSWatcher[] = [];
  for (const [directory, names] of byDirectory) {
    try {
      const watcher = watch(directory, { persistent: true }, (_event, name) => {
        // Some platforms do not say which file changed: then it may have been one of ours.
        if (name === null || names.has(String(name))) changed();
      });
      watcher.on('error', (error) => {
        options.log?.warn('stopped watching a config directory', { directory, error: error.message });
        watcher.close();
      });
      watchers.push(watcher);
    } catch (error) {
      options.log?.warn('cannot watch a config directory: changes there are not seen', {
        directory,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}
