import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceInfo } from './registry.js';
import { resourceKey } from './registry.js';
import { type ListOptions, matches, type RestStorage } from './rest-storage.js';
import type { ObjectStore, StoreEvent } from './store.js';
import { toTable } from './table.js';
import type { KubeObject } from './types.js';

export interface WatchRequest {
  r: ResourceInfo;
  version: string;
  namespace: string | undefined;
  selectors: Pick<ListOptions, 'labelSelector' | 'fieldSelector'>;
  resourceVersion: string | undefined;
  allowBookmarks: boolean;
  timeoutSeconds: number | undefined;
  table: boolean;
  includeObject: string;
}

const BOOKMARK_INTERVAL_MS = 5_000;
const DEFAULT_TIMEOUT_S = 1800;

/**
 * Streams watch events as kube-apiserver does: one JSON object a line. Replays from
 * the event log when a resourceVersion is given, or starts with synthetic ADDED
 * events for the current state; 410 Expired (as an ERROR event) when the log no
 * longer reaches back.
 */
export function serveWatch(
  req: IncomingMessage,
  res: ServerResponse,
  store: ObjectStore,
  storage: RestStorage,
  w: WatchRequest,
): void {
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Transfer-Encoding': 'chunked',
    'Cache-Control': 'no-cache',
  });
  // Clients wait for the response headers before they go on; send them now, not with the first event.
  res.flushHeaders();
  const key = resourceKey(w.r);
  const render = (o: KubeObject) =>
    w.table
      ? toTable(w.r, w.version, [o], { resourceVersion: o.metadata.resourceVersion! }, w.includeObject)
      : storage.view(w.r, w.version, o);
  // An event may arrive after the response ended (timeout) but before 'close' is emitted: a write
  // then would be an unhandled ERR_STREAM_WRITE_AFTER_END on the response and stop the process.
  const send = (type: string, object: unknown) => {
    if (!res.writableEnded && !res.destroyed) res.write(`${JSON.stringify({ type, object })}\n`);
  };

  const onEvent = (e: StoreEvent) => {
    const now = matches(e.object, w.selectors);
    if (e.type === 'MODIFIED') {
      const before = e.previous ? matches(e.previous, w.selectors) : now;
      if (now && before) send('MODIFIED', render(e.object));
      else if (now) send('ADDED', render(e.object));
      else if (before) send('DELETED', render(e.object));
    } else if (now) send(e.type, render(e.object));
  };

  const rv = w.resourceVersion;
  if (rv === undefined || rv === '' || rv === '0') {
    for (const o of store.list(key, w.namespace)) if (matches(o, w.selectors)) send('ADDED', render(o));
  } else {
    const from = Number(rv);
    const replay = Number.isFinite(from) ? store.eventsSince(from, key, w.namespace) : undefined;
    if (!replay) {
      send('ERROR', {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: Number.isFinite(from)
          ? `too old resource version: ${rv} (${store.oldestWatchableRv})`
          : `invalid resource version: ${rv}`,
        reason: Number.isFinite(from) ? 'Expired' : 'BadRequest',
        code: Number.isFinite(from) ? 410 : 400,
      });
      res.end();
      return;
    }
    for (const e of replay) onEvent(e);
  }
  const unsubscribe = store.subscribe({ resource: key, namespace: w.namespace, onEvent });

  const bookmark = () =>
    send('BOOKMARK', {
      kind: w.r.kind,
      apiVersion: w.r.group ? `${w.r.group}/${w.version}` : w.version,
      metadata: { resourceVersion: String(store.resourceVersion) },
    });
  const bookmarks = w.allowBookmarks ? setInterval(bookmark, BOOKMARK_INTERVAL_MS) : undefined;
  const timeout = setTimeout(
    () => {
      if (w.allowBookmarks) bookmark();
      stop();
      res.end();
    },
    (w.timeoutSeconds ?? DEFAULT_TIMEOUT_S) * 1000,
  );
  const stop = () => {
    unsubscribe();
    clearTimeout(timeout);
    if (bookmarks) clearInterval(bookmarks);
  };
  req.on('close', stop);
  res.on('close', stop);
}
