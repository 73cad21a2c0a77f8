// A route the spec names that api/openapi.yaml does not have yet (spec 3's GET /cluster, for the
// session's cluster preference): the typed client cannot name it. This view of the same client
// (same fetch: 401 refresh, progress indicator, envelope) takes any path.
import { api } from '../../api/client';

type Init = { params?: { path?: Record<string, string>; query?: Record<string, unknown> }; body?: unknown };
type Outcome = { data?: { result: unknown }; error?: unknown; response: Response };
type Method = (path: string, init?: Init) => Promise<Outcome>;

export const rawApi = api as unknown as { GET: Method; POST: Method; PUT: Method; DELETE: Method };
