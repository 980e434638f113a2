/** Candidates for the browser tests' Chromium, in order of preference (test-browser.mjs). */
export declare const TEST_BROWSER_CANDIDATES: readonly string[];
/** CHROMIUM_PATH, else the first candidate on the machine, else null (Playwright's own). */
export declare function testBrowserPath(env?: NodeJS.ProcessEnv): string | null;
