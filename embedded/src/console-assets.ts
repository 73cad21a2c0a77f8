import fs from 'node:fs';
import path from 'node:path';
import express, { type Router } from 'express';

/**
 * The console's built files (console/dist) and the single-page fallback: any GET that
 * is not an API or asset path and accepts HTML gets index.html, so deep links such as
 * /verification/{token} work. Hashed assets are cached for a year; index.html never.
 */
export function consoleAssets(distDir: string): Router {
  const router = express.Router();
  const indexHtml = path.join(distDir, 'index.html');
  router.use(
    '/assets',
    express.static(path.join(distDir, 'assets'), { immutable: true, maxAge: '365d', fallthrough: false }),
  );
  router.use(express.static(distDir, { index: false }));
  router.get(/.*/, (req, res, next) => {
    if (req.path.startsWith('/api/') || !req.accepts('html')) return next();
    if (!fs.existsSync(indexHtml)) {
      res
        .status(503)
        .type('text/plain')
        .send('The console is not built: run `npm run build -w console` (npm start does it for you).');
      return;
    }
    res.set('Cache-Control', 'no-cache').sendFile(indexHtml);
  });
  return router;
}
