import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import './i18n';

// The typed client builds `new Request('/api/v0/…')` with the Request class it finds when it
// is created, and Node's Request refuses relative URLs (a browser resolves them against the
// page). Installed here, before any test module loads the client: a Request that resolves
// them against jsdom's location.
const NodeRequest = globalThis.Request;
if (!(NodeRequest as { resolvesRelative?: boolean }).resolvesRelative) {
  class BrowserLikeRequest extends NodeRequest {
    static resolvesRelative = true;
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === 'string' ? new URL(input, location.href) : input, init);
    }
  }
  globalThis.Request = BrowserLikeRequest as typeof Request;
}

afterEach(() => cleanup());
