import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { RegistryAuth } from '../auth.js';
import type { Credentials } from '../credentials.js';
import { DigestVerifier, assertDigest, isDigest, sha256Digest } from '../digest.js';
import { ImageError } from '../errors.js';
import { MANIFEST_MEDIA_TYPES, manifestMediaType } from '../media-types.js';
import type { BlobInput, ImageStore, ManifestBytes } from '../store.js';

export interface RegistryStoreOptions {
  /** Registry host as the API is reached: `registry-1.docker.io`, `127.0.0.1:5000`. */
  host: string;
  credentials?: Credentials;
  /** Plain HTTP; the default for localhost and 127.0.0.0/8, as Docker does. */
  insecure?: boolean;
  /** Bound on connecting and on waiting for response headers. */
  timeoutMs?: number;
  /** Blobs larger than this are uploaded in PATCH chunks of this size. */
  chunkSize?: number;
  fetch?: typeof fetch;
}

interface Call {
  method: string;
  path: string;
  scope: string;
  subject: string;
  headers?: Record<string, string>;
  body?: Buffer;
  /** Statuses that are answers, not errors (404 included when the caller handles it). */
  ok: number[];
}

const LOCAL = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/;

/** An image store over the OCI distribution API v2. */
export class RegistryStore implements ImageStore {
  readonly description: string;
  private readonly base: string;
  private readonly auth: RegistryAuth;
  private readonly timeoutMs: number;
  private readonly chunkSize: number;
  private readonly fetchImpl: typeof fetch;

  constructor(readonly options: RegistryStoreOptions) {
    const insecure = options.insecure ?? LOCAL.test(options.host);
    this.base = `${insecure ? 'http' : 'https'}://${options.host}`;
    this.description = `registry ${options.host}`;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.chunkSize = options.chunkSize ?? 16 * 1024 * 1024;
    this.fetchImpl = options.fetch ?? fetch;
    this.auth = new RegistryAuth(options.host, options.credentials, this.fetchImpl, this.timeoutMs);
  }

  async listTags(repository: string): Promise<string[]> {
    const subject = this.subject(repository);
    const tags: string[] = [];
    let path: string | undefined = `/v2/${repository}/tags/list?n=1000`;
    while (path) {
      const res = await this.call({ method: 'GET', path, scope: pull(repository), subject, ok: [200, 404] });
      if (res.status === 404) throw await notFound(res, `${subject}: the repository does not exist`);
      const body = (await res.json()) as { tags?: string[] | null };
      tags.push(...(body.tags ?? []));
      path = nextLink(res.headers.get('link'));
    }
    return tags;
  }

  async getManifest(repository: string, reference: string): Promise<ManifestBytes> {
    const subject = this.subject(repository, reference);
    const res = await this.call({
      method: 'GET',
      path: `/v2/${repository}/manifests/${reference}`,
      scope: pull(repository),
      subject,
      headers: { accept: MANIFEST_MEDIA_TYPES.join(', ') },
      ok: [200, 404],
    });
    if (res.status === 404) throw await notFound(res, `${subject}: no such image or tag`);
    const bytes = Buffer.from(await res.arrayBuffer());
    const digest = sha256Digest(bytes);
    if (isDigest(reference) && digest !== reference) {
      throw new ImageError(
        'DIGEST_MISMATCH',
        `${subject}: the registry sent a manifest that hashes to ${digest}`,
      );
    }
    const header = res.headers.get('content-type')?.split(';')[0]?.trim();
    const mediaType =
      header && (MANIFEST_MEDIA_TYPES as readonly string[]).includes(header)
        ? header
        : manifestMediaType(JSON.parse(bytes.toString('utf8')) as { mediaType?: string });
    return { digest, mediaType, bytes };
  }

  async hasBlob(repository: string, digest: string): Promise<boolean> {
    const res = await this.call({
      method: 'HEAD',
      path: `/v2/${repository}/blobs/${assertDigest(digest)}`,
      scope: pull(repository),
      subject: this.subject(repository, digest),
      ok: [200, 404],
    });
    return res.status === 200;
  }

  async getBlob(repository: string, descriptor: { digest: string; size?: number }): Promise<Readable> {
    const subject = this.subject(repository);
    const res = await this.call({
      method: 'GET',
      path: `/v2/${repository}/blobs/${assertDigest(descriptor.digest)}`,
      scope: pull(repository),
      subject,
      ok: [200, 404],
    });
    if (res.status === 404 || !res.body)
      throw await notFound(res, `${subject}: blob ${descriptor.digest} does not exist`);
    const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
    const verifier = new DigestVerifier(descriptor.digest, descriptor.size, subject);
    body.on('error', (error) => verifier.destroy(error));
    return body.pipe(verifier);
  }

  async putBlob(repository: string, blob: BlobInput, options: { mountFrom?: string } = {}): Promise<void> {
    const subject = this.subject(repository);
    const scope = options.mountFrom
      ? `${pushPull(repository)} ${pull(options.mountFrom)}`
      : pushPull(repository);
    if (await this.hasBlob(repository, blob.digest)) return;
    const query = options.mountFrom
      ? `?mount=${encodeURIComponent(blob.digest)}&from=${encodeURIComponent(options.mountFrom)}`
      : '';
    const started = await this.call({
      method: 'POST',
      path: `/v2/${repository}/blobs/uploads/${query}`,
      scope,
      subject,
      ok: [201, 202],
    });
    await started.body?.cancel();
    // 201 means the registry mounted it; 202 means it did not and an upload session began.
    if (started.status === 201) return;
    let location = this.location(started, subject);
    const content = await blob.open();
    if (blob.size <= this.chunkSize) {
      const bytes = await buffer(content);
      await this.finish(location, blob.digest, scope, subject, bytes);
      return;
    }
    let offset = 0;
    for await (const chunk of chunks(content, this.chunkSize)) {
      const res = await this.call({
        method: 'PATCH',
        path: location,
        scope,
        subject,
        headers: {
          'content-type': 'application/octet-stream',
          'content-range': `${offset}-${offset + chunk.length - 1}`,
        },
        body: chunk,
        ok: [202, 204],
      });
      await res.body?.cancel();
      offset += chunk.length;
      location = this.location(res, subject);
    }
    await this.finish(location, blob.digest, scope, subject);
  }

  async putManifest(
    repository: string,
    manifest: Omit<ManifestBytes, 'digest'>,
    tag?: string,
  ): Promise<string> {
    const digest = sha256Digest(manifest.bytes);
    for (const reference of tag ? [digest, tag] : [digest]) {
      const res = await this.call({
        method: 'PUT',
        path: `/v2/${repository}/manifests/${reference}`,
        scope: pushPull(repository),
        subject: this.subject(repository, reference),
        headers: { 'content-type': manifest.mediaType },
        body: manifest.bytes,
        ok: [201],
      });
      await res.body?.cancel();
    }
    return digest;
  }

  private async finish(
    location: string,
    digest: string,
    scope: string,
    subject: string,
    body?: Buffer,
  ): Promise<void> {
    const url = new URL(location, this.base);
    url.searchParams.set('digest', digest);
    const res = await this.call({
      method: 'PUT',
      path: url.pathname + url.search,
      scope,
      subject,
      headers: { 'content-type': 'application/octet-stream' },
      body: body ?? Buffer.alloc(0),
      ok: [201, 204],
    });
    await res.body?.cancel();
  }

  private location(res: Response, subject: string): string {
    const location = res.headers.get('location');
    if (!location) throw new ImageError('REGISTRY_ERROR', `${subject}: the registry gave no upload location`);
    const url = new URL(location, this.base);
    return url.pathname + url.search;
  }

  private subject(repository: string, reference?: string): string {
    const ref = reference ? (isDigest(reference) ? `@${reference}` : `:${reference}`) : '';
    return `${this.options.host}/${repository}${ref}`;
  }

  /** One request, answering at most one authentication challenge. */
  private async call(call: Call): Promise<Response> {
    let authorization = this.auth.header(call.scope);
    let res = await this.send(call, authorization);
    if (res.status === 401) {
      await res.body?.cancel();
      this.auth.forget(call.scope);
      authorization = await this.auth.answer(res.headers.get('www-authenticate'), call.scope, call.subject);
      if (!authorization) {
        throw new ImageError(
          'UNAUTHORIZED',
          `${call.subject}: ${this.options.host} requires credentials and none are configured`,
        );
      }
      res = await this.send(call, authorization);
      if (res.status === 401) {
        await res.body?.cancel();
        throw new ImageError(
          'UNAUTHORIZED',
          this.options.credentials
            ? `${call.subject}: ${this.options.host} refused the credentials`
            : `${call.subject}: ${this.options.host} requires credentials and none are configured`,
        );
      }
    }
    if (res.status === 403) {
      await res.body?.cancel();
      throw new ImageError('UNAUTHORIZED', `${call.subject}: ${this.options.host} denied access (HTTP 403)`);
    }
    if (!call.ok.includes(res.status)) {
      const detail = await res.text().catch(() => '');
      throw new ImageError(
        res.status === 404 ? 'NOT_FOUND' : 'REGISTRY_ERROR',
        `${call.subject}: ${call.method} answered HTTP ${res.status}${detail ? `: ${detail.slice(0, 300)}` : ''}`,
      );
    }
    return res;
  }

  private async send(call: Call, authorization: string | undefined): Promise<Response> {
    const headers: Record<string, string> = { ...call.headers };
    if (authorization) headers.authorization = authorization;
    // The timeout covers connecting and the response headers; a blob's body may then take as long as it needs.
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new Error(`no answer in ${this.timeoutMs} ms`)),
      this.timeoutMs,
    );
    try {
      return await this.fetchImpl(new URL(call.path, this.base), {
        method: call.method,
        headers,
        body: call.body,
        signal: controller.signal,
        redirect: 'follow',
      });
    } catch (error) {
      throw new ImageError(
        'UNREACHABLE',
        `${call.subject}: the registry ${this.options.host} cannot be reached (${reason(error)})`,
        {
          cause: error,
        },
      );
    } finally {
      clearTimeout(timer);
    }
  }
}

function pull(repository: string): string {
  return `repository:${repository}:pull`;
}

function pushPull(repository: string): string {
  return `repository:${repository}:pull,push`;
}

function reason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

async function notFound(res: Response, message: string): Promise<ImageError> {
  await res.body?.cancel();
  return new ImageError('NOT_FOUND', message);
}

function nextLink(link: string | null): string | undefined {
  const match = link ? /<([^>]+)>\s*;\s*rel="?next"?/.exec(link) : null;
  return match?.[1];
}

async function* chunks(stream: Readable, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let length = 0;
  for await (const piece of stream as AsyncIterable<Buffer>) {
    pending.push(piece);
    length += piece.length;
    while (length >= size) {
      const all = Buffer.concat(pending);
      yield all.subarray(0, size);
      pending = [all.subarray(size)];
      length = all.length - size;
    }
  }
  if (length > 0) yield Buffer.concat(pending);
}
