import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { catalogPlugin } from './catalogPlugin.ts';

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

/**
 * The app shell's service worker and the web manifest (apps/web/src/offline/appShell.ts registers
 * it, only in a secure context). Workbox precaches the build's own files, with their content
 * hashes, and drops an older build's; every page route opens index.html from the cache. The API
 * and the socket are never cached: the lesson's state comes from the server or from this device's
 * IndexedDB (offline/deviceStore.ts), not from a cached response.
 */
const appShell = VitePWA({
  injectRegister: null,
  registerType: 'autoUpdate',
  // The icons are in the precache through `globPatterns`; listed again they would be twice.
  includeManifestIcons: false,
  manifest: {
    name: 'Classroom whiteboard',
    short_name: 'Whiteboard',
    description: 'A live whiteboard for lessons: share a code, draw together, see who is here.',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    background_color: '#ffffff',
    theme_color: '#264de4',
    icons: [
      { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png' },
      { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png' },
      { src: '/icons/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
      { src: '/icons/icon.svg', sizes: 'any', type: 'image/svg+xml' },
    ],
  },
  workbox: {
    globPatterns: ['**/*.{js,mjs,css,html,svg,png,woff2,webmanifest}'],
    // The PDF reader's worker and the largest chunks are part of the shell too (a worksheet opens offline).
    maximumFileSizeToCacheInBytes: 8 * 1024 * 1024,
    navigateFallback: '/index.html',
    navigateFallbackDenylist: [/^\/api\//, /^\/socket\.io/],
    cleanupOutdatedCaches: true,
    clientsClaim: true,
    skipWaiting: true,
  },
});

export default defineConfig({
  plugins: [react(), catalogPlugin(), appShell, precompress()],
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
