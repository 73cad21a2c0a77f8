import cookieParser from 'cookie-parser';
import express, { type Express } from 'express';
import { errorResponder, unknownRoute } from './http/respond.js';
import { mountRoutes } from './http/route.js';
import { ApiMetrics } from './metrics.js';
import { allRoutes } from './routes/index.js';
import { servicesFor, type ApiDeps } from './services/index.js';

export const API_BASE = '/api/v0';

/**
 * The Express app serving /api/v0. Mount it as is (`server.on('request', app)`) or
 * under another app; call `attachRealtime(server, deps)` with the same deps for the
 * websocket.
 */
export function createApp(deps: ApiDeps, metrics = new ApiMetrics()): Express {
  const services = servicesFor(deps);
  void services.bus.listen(); // other API processes on the same PostgreSQL (errors are logged)
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('trust proxy', deps.config.trustProxy);

  const api = express.Router();
  api.use(metrics.observe(API_BASE));
  api.use(cookieParser());
  mountRoutes(api, allRoutes(services), services, { checkAnswers: deps.checkAnswers });
  api.use(unknownRoute);
  api.use(errorResponder(deps.logger));

  app.use(API_BASE, api);
  app.get('/metrics', metrics.serve); // at the root, like /healthz and /readyz
  return app;
}
