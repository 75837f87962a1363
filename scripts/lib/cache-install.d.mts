// Types of cache-install.mjs, for the TypeScript that imports it (bench/, test/).
export declare const root: string;
export declare const cacheDir: string;
export declare function installedVersion(pkgJson: string): string | undefined;
export declare function packageDir(prefix: string, name: string): string;
export declare function downloadLine(what: string, why: string | undefined, prefix: string): string;
export interface InstallOptions {
  /** What the download is for, said in its announcement (`downloading X (why) into .cache/…, once`). */
  why?: string;
  log?: (message: string) => void;
  /** Never install: throw when something is missing. */
  offline?: boolean;
}
export declare function ensurePackages(dir: string, packages: Record<string, string>, options?: InstallOptions): string;
export declare function node22(options?: InstallOptions): string;
