/** The types of build-server.mjs (plain JavaScript, so that bin/mmgen loads it without tsx). */
export declare const ROOT: string;
export declare const BUILD_DIR: string;
export declare function sourceKey(files?: string[]): string;
export declare function ensureServerBuilt(): Promise<{ tree: string; built: boolean }>;
