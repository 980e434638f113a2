export declare const repoRoot: string;
/** Compiles server entries with esbuild (server-bundle.mjs). */
export declare function bundleServer(options: { out: string; entries: Record<string, string>; sourcemap?: boolean }): Promise<void>;
