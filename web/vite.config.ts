import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The dashboard is served by mmgen itself at /dashboard (src/http/dashboard.ts)
// and talks only to the public /v1 API of the same origin. `npm run dev:web`
// serves it with hot reload, proxying the API to a local `npm start`.
export default defineConfig({
  root: import.meta.dirname,
  base: '/dashboard/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // model-viewer (with three.js) is loaded only when a 3D output is shown.
    chunkSizeWarningLimit: 1200,
    reportCompressedSize: false,
    // Per-plugin timing notes are noise in `npm install` output.
    rolldownOptions: { checks: { pluginTimings: false } },
  },
  server: {
    proxy: {
      '/v1': process.env.MMGEN_API_URL ?? 'http://127.0.0.1:8080',
      '/files': process.env.MMGEN_API_URL ?? 'http://127.0.0.1:8080',
      '/uploads': process.env.MMGEN_API_URL ?? 'http://127.0.0.1:8080',
    },
  },
});
