import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// In dev the API and Socket.IO live on the server (port 3000); proxying keeps the browser on one
// origin, exactly as in production where the server serves apps/web/dist itself.
const SERVER_URL = 'http://127.0.0.1:3000';

export default defineConfig({
  plugins: [react()],
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
    sourcemap: true,
  },
});
