import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// `npm run dev -w console` serves the console with hot reload on :5173 and sends
// /api and /log (and their websockets) to the platform started by `npm start` (SANDFLOW_URL).
const platform = process.env.SANDFLOW_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  server: {
    host: '127.0.0.1',
    proxy: {
      '^/api/': { target: platform, ws: true, changeOrigin: false },
      // The sandbox terminal's socket (spec 1 §7.2: {host}/log/{containerId}). A plain '/log' key is
      // a prefix and would also take the console's own /login and /logs pages.
      '^/log/': { target: platform, ws: true, changeOrigin: false },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The route chunks are listed by bench/console from this manifest.
    manifest: true,
    chunkSizeWarningLimit: 800,
  },
});
