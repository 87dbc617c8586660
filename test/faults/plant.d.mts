// Types of plant.mjs (plain Node ESM, so that it runs without a build), for test/unit/planted-faults.test.ts.
export interface Fault {
  /** What `plant` and `revert` are given. */
  name: string;
  /** money, auth, isolation, idempotency, webhooks, moderation, catalog or store. */
  area: string;
  /** What goes wrong, in a line. */
  breaks: string;
  /** The one file changed, relative to the root. */
  file: string;
  /** The exact text replaced: found exactly once in the clean file. */
  search: string;
  /** What replaces it: found nowhere in the clean file, so `revert` finds it. */
  replace: string;
  /** The test files measured to fail with it planted. */
  caughtBy: string[];
}
export declare const ROOT: string;
export declare const FAULTS: readonly Fault[];
export declare function occurrences(text: string, needle: string): number;
export declare function faultNamed(name: string): Fault | undefined;
