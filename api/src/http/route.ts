import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { z } from 'zod';
import { AUTHORIZATION, routeKey, type Role } from '../authorization.js';
import { roleIn, currentRole, type Caller } from '../services/callers.js';
import { badRequest, forbidden, notFound, unauthorized, unprocessable } from '../errors.js';
import type { Services } from '../services/index.js';

type Method = 'get' | 'post' | 'put' | 'delete';
type AnySchema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : Record<string, never>;

export interface RouteContext<B, Q, P> {
  req: Request;
  res: Response;
  body: B;
  query: Q;
  params: P;
  /** Null only on public routes called without a session. */
  caller: Caller | null;
  /** The caller's role in the target organization (scoped routes) or the current one. */
  role: Role | null;
  /** The organization the route acts on: the scope's, else the caller's current one. */
  organizationId: string | null;
}

/** What a route sends instead of the `{ result, status }` envelope (redirects, images, documents). */
export interface RawAnswer {
  status: number;
  description: string;
  /** Media type of the body; absent for a redirect. */
  contentType?: string;
}

interface RouteBase<B extends AnySchema | undefined, Q, P> {
  method: Method;
  path: string;
  summary: string;
  tag: string;
  body?: B;
  query?: Q;
  params?: P;
  /** Largest accepted body; the default suits small forms. */
  bodyLimit?: string;
  /** Raw (non-JSON) body types accepted besides JSON and form-urlencoded, e.g. image uploads. */
  rawTypes?: string[];
  status?: number;
  /** Middleware run after the body is parsed (rate limiters keyed by account). */
  limiters?: RequestHandler[];
}

/**
 * A route answers the envelope with a `result` its schema describes (the handler's return
 * type is checked against it, and under test every answer is parsed with it), or, rarely,
 * something else it writes itself (`raw`, the handler returning HANDLED).
 */
export type RouteDefinition<
  B extends AnySchema | undefined = AnySchema | undefined,
  Q = unknown,
  P = unknown,
  R extends AnySchema = AnySchema,
> = RouteBase<B, Q, P> &
  (
    | {
        result: R;
        raw?: undefined;
        handler(ctx: RouteContext<Out<B>, Out<Q>, Out<P>>): Promise<z.input<R>>;
      }
    | {
        raw: RawAnswer;
        result?: undefined;
        handler(ctx: RouteContext<Out<B>, Out<Q>, Out<P>>): Promise<typeof HANDLED>;
      }
  );

/** Identity, for type inference of the handler's context and answer from the schemas. */
export function route<
  B extends AnySchema | undefined = undefined,
  Q extends AnySchema | undefined = undefined,
  P extends AnySchema | undefined = undefined,
  R extends AnySchema = AnySchema,
>(definition: RouteDefinition<B, Q, P, R>): RouteDefinition {
  return definition as unknown as RouteDefinition;
}

/**
 * Under test (`ApiDeps.checkAnswers`), an answer that its route's schema does not describe
 * is a 500: the OpenAPI document and the console's types are built from those schemas.
 */
export function checkAnswer(definition: RouteDefinition, result: unknown): void {
  if (!definition.result) return;
  const parsed = definition.result.safeParse(JSON.parse(JSON.stringify(result ?? null)));
  if (!parsed.success)
    throw new Error(
      `${definition.method.toUpperCase()} ${definition.path} answered outside its result schema: ${describeIssue(parsed.error, 'result')}`,
    );
}

/** A response the handler writes itself (redirects, images). */
export const HANDLED: unique symbol = Symbol('handled');

/** Zod's first issue as `field: message`, so a 400/422 always names the field. */
export function describeIssue(error: z.ZodError, where: string): string {
  const issue = error.issues[0];
  if (!issue) return `invalid ${where}`;
  const field = issue.path.length ? issue.path.join('.') : where;
  return `${field}: ${issue.message}`;
}

/** The body is a 422 (understood, but wrong), the path and the query a 400. */
function parse<S extends AnySchema>(
  schema: S | undefined,
  value: unknown,
  where: 'params' | 'query' | 'body',
) {
  if (!schema) return {};
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) {
    const message = describeIssue(parsed.error, where);
    throw where === 'body' ? unprocessable(message, 'invalid_body') : badRequest(message, `invalid_${where}`);
  }
  return parsed.data;
}

export const ACCESS_COOKIE = 'sf_access';
export const REFRESH_COOKIE = 'sf_refresh';

/** The access token from the cookie (console) or the Authorization header (scripts). */
export function accessTokenOf(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice('Bearer '.length).trim();
  const cookie = (req.cookies as Record<string, string> | undefined)?.[ACCESS_COOKIE];
  return cookie || undefined;
}

export function mountRoutes(
  router: Router,
  routes: RouteDefinition[],
  services: Services,
  options: { checkAnswers?: boolean | undefined } = {},
): void {
  for (const definition of routes) {
    const key = routeKey(definition.method, definition.path);
    const rule = AUTHORIZATION[key];
    if (!rule) throw new Error(`route ${key} has no entry in the authorization table`);
    const limit = definition.bodyLimit ?? '16kb';
    const bodyParsers: RequestHandler[] = [
      express.json({ limit }),
      express.urlencoded({ limit, extended: true }),
      ...(definition.rawTypes ? [express.raw({ limit, type: definition.rawTypes })] : []),
    ];

    const handle: RequestHandler = async (req, res) => {
      const claims = await authenticate(req);
      const caller = claims
        ? await services.loadCaller(claims.userId, claims.organizationId, claims.issuedAt)
        : null;
      if (rule.access !== 'public' && !caller) throw unauthorized();

      // A malformed id is a 400 before anything looks it up.
      const params = parse(definition.params as AnySchema | undefined, req.params, 'params');
      let role: Role | null = caller ? currentRole(caller) : null;
      let organizationId = caller?.currentOrganizationId ?? null;
      const value = rule.scope ? ((params as Record<string, string>)[rule.scope.param] ?? '') : '';
      // Oneself is always in scope, even before joining any organization.
      const self = rule.scope?.kind === 'user' && value === caller?.userId;
      if (caller && rule.scope && !self) {
        const target = await services.scopeOf(rule.scope.kind, value, caller);
        if (!target) throw notFound();
        role = roleIn(caller, target.organizationId, target.groupId);
        if (!role) throw notFound();
        organizationId = target.organizationId;
        if (rule.selfOnly && role !== 'admin' && value !== caller.userId) throw forbidden();
      }
      if (caller && rule.object) {
        const id = (params as Record<string, string>)[rule.object.param] ?? '';
        const objects = rule.object.kind === 'workflow' ? services.workflows : services.sandboxes;
        await objects.authorize(caller, id, rule.object.need);
      }
      if (Array.isArray(rule.access) && !(role && rule.access.includes(role))) {
        const preferred = rule.unlessPreference && (await services.preferences.get(rule.unlessPreference));
        if (!preferred) throw forbidden();
      }

      await runAll(bodyParsers, req, res);
      if (definition.limiters) {
        res.locals.callerId = caller?.userId;
        await runAll(definition.limiters, req, res);
      }
      const query = parse(definition.query as AnySchema | undefined, req.query, 'query');
      const body = Buffer.isBuffer(req.body) ? req.body : parse(definition.body, req.body, 'body');
      const result = await definition.handler({
        req,
        res,
        body,
        query,
        params,
        caller,
        role,
        organizationId,
      } as never);
      if (result === HANDLED) return;
      if (options.checkAnswers) checkAnswer(definition, result);
      const status = definition.status ?? 200;
      res.status(status).json({ result: result ?? null, status });
    };

    async function authenticate(req: Request) {
      const token = accessTokenOf(req);
      return token ? services.tokens.verifyAccessToken(token) : null;
    }

    router[definition.method](definition.path, handle);
  }
}

/** Runs body parsers after authorization, so a refused caller's body is never read. */
async function runAll(handlers: RequestHandler[], req: Request, res: Response): Promise<void> {
  for (const handler of handlers) {
    await new Promise<void>((resolve, reject) => {
      void handler(req, res, (error?: unknown) => (error ? reject(error as Error) : resolve()));
    });
  }
}
