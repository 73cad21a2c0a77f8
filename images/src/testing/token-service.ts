// A Docker-style bearer token service for docker-registry's `auth: token` mode: checks basic
// credentials, grants what the scope asks for, signs an RS256 JWT whose x5c is a self-signed
// certificate the registry trusts (the protocol Docker Hub, GHCR and Harbor speak).
import { execFileSync } from 'node:child_process';
import { createPrivateKey, randomUUID, sign, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';

export const TOKEN_ISSUER = 'sandflow-test-token';
export const TOKEN_SERVICE = 'sandflow-test-registry';

export interface TokenService {
  realm: string;
  certPath: string;
  /** Tokens issued so far (to see the client's cache at work). */
  issued: number;
  close(): Promise<void>;
}

export async function startTokenService(
  dir: string,
  users: Record<string, string>,
  expiresInSeconds: number,
): Promise<TokenService> {
  const keyPath = join(dir, 'token.key');
  const certPath = join(dir, 'token.crt');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '1',
      '-subj',
      '/CN=sandflow-test-token',
    ],
    { stdio: 'ignore' },
  );
  const key = createPrivateKey(readFileSync(keyPath));
  const der = new X509Certificate(readFileSync(certPath)).raw.toString('base64');
  const state = { issued: 0 };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const [scheme, encoded] = (req.headers.authorization ?? '').split(' ');
    const [user, ...rest] =
      scheme === 'Basic' && encoded ? Buffer.from(encoded, 'base64').toString().split(':') : [];
    if (user !== undefined && users[user] !== rest.join(':')) {
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end('{"details":"incorrect username or password"}');
      return;
    }
    const access = user
      ? url.searchParams.getAll('scope').map((scope) => {
          const parts = scope.split(':');
          return {
            type: parts[0],
            name: parts.slice(1, -1).join(':'),
            actions: (parts.at(-1) ?? '').split(','),
          };
        })
      : [];
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: TOKEN_ISSUER,
      sub: user ?? '',
      aud: url.searchParams.get('service'),
      iat: now,
      nbf: now - 30,
      exp: now + expiresInSeconds,
      jti: randomUUID(),
      access,
    };
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const body = `${part({ alg: 'RS256', typ: 'JWT', x5c: [der] })}.${part(claims)}`;
    const token = `${body}.${sign('sha256', Buffer.from(body), key).toString('base64url')}`;
    state.issued++;
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ token, expires_in: expiresInSeconds }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    realm: `http://127.0.0.1:${port}/token`,
    certPath,
    get issued() {
      return state.issued;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
