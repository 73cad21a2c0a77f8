import fs from 'node:fs';
import path from 'node:path';
import { generate } from 'selfsigned';

export interface ServingCert {
  cert: string;
  key: string;
}

const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

async function selfSigned(): Promise<ServingCert> {
  const now = new Date();
  const result = await generate([{ name: 'commonName', value: 'kube-lite' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + TEN_YEARS_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { cert: result.cert, key: result.private };
}

/**
 * kube-lite serves HTTPS like kube-apiserver (clients such as kubectl do not send
 * bearer tokens over plain HTTP). The self-signed serving certificate is made once
 * per data folder and is its own CA in the kubeconfig.
 */
export async function loadOrCreateServingCert(dataDir: string | undefined): Promise<ServingCert> {
  if (!dataDir) return selfSigned();
  const certFile = path.join(dataDir, 'kube-lite.crt');
  const keyFile = path.join(dataDir, 'kube-lite.key');
  if (fs.existsSync(certFile) && fs.existsSync(keyFile)) {
    return { cert: fs.readFileSync(certFile, 'utf8'), key: fs.readFileSync(keyFile, 'utf8') };
  }
  const created = await selfSigned();
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(keyFile, created.key, { mode: 0o600 });
  fs.writeFileSync(certFile, created.cert, { mode: 0o644 });
  return created;
}
