/** Types of scripts/build-server.mjs (plain JavaScript so that `npm start` needs no TypeScript loader). */
export declare const projectRoot: string;
/** Builds the server into `outDir` (default dist/server) unless it is current; resolves to whether it built. */
export declare function ensureServerBuild(outDir?: string): Promise<boolean>;
