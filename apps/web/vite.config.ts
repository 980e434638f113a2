import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/** Text files worth compressing once at build time rather than on every request. */
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt|webmanifest)$/;

/**
 * Writes `<file>.br` and `<file>.gz` next to every compressible file of the build, so the server
 * sends the smallest encoding a browser accepts without compressing anything per request.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'wb-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    writeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir).flatMap((name) => {
          const path = join(dir, name);
          return statSync(path).isDirectory() ? walk(path) : [path];
        });
      for (const file of walk(outDir)) {
        if (!COMPRESSIBLE.test(file)) continue;
        const body = readFileSync(file);
        if (body.length < 1024) continue;
        writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
      }
    },
  };
}

// In dev the API and Socket.IO live on the server (port 3000); proxying keeps the browser on one
// origin, exactly as in production where the server serves apps/web/dist itself.
const SERVER_URL = 'http://127.0.0.1:3000';

export default defineConfig({
  plugins: [react(), precompress()],
  server: {
    port: 5173,
    strictPort: true,
    proxy: {
      '/api': { target: SERVER_URL, changeOrigin: false },
      '/socket.io': { target: SERVER_URL, ws: true, changeOrigin: false },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Maps are written for whoever debugs a build, with no reference from the bundles; the server
    // never serves *.map (apps/server/src/app.ts).
    sourcemap: 'hidden',
  },
});
