/** Compiles the server once per process for the test suites' server processes (test-server.mjs). */
export declare function testServerBuild(): Promise<{ entry: string; env: Record<string, string> }>;
