import { act, configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEventBase from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubApi, type ApiCall, type ApiRoutes } from '../../test-support/api-stub';
import { aMe } from '../../test-support/fixtures';
import { stubWindowWidth } from '../../test-support/media';
import { clearToasts, renderPage } from '../../test-support/render';
import SandboxPage from './SandboxPage';
import { aSandbox, TerminalSocket } from './testing';

const userEvent = userEventBase.setup({ delay: null });
// These pages render MUI (and xterm) in jsdom: on a loaded machine a step can take seconds.
configure({ asyncUtilTimeout: 5000 });
const SAVED = aSandbox(7, { name: 'ndvi' });
const FIRST = 'c0ffee00-0000-4000-8000-000000000001';
const SECOND = 'c0ffee00-0000-4000-8000-000000000002';

/** XMLHttpRequest as the upload uses it: records the request, reports progress, answers on the test's word. */
class FakeUpload {
  static made: FakeUpload[] = [];
  method = '';
  url = '';
  status = 0;
  statusText = '';
  responseText = '';
  withCredentials = false;
  body: FormData | null = null;
  upload: {
    onprogress: ((event: { lengthComputable: boolean; loaded: number; total: number }) => void) | null;
  } = {
    onprogress: null,
  };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  constructor() {
    FakeUpload.made.push(this);
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  send(body: FormData) {
    this.body = body;
  }
  progress(loaded: number, total: number) {
    this.upload.onprogress?.({ lengthComputable: true, loaded, total });
  }
  answer(status: number, result: unknown) {
    this.status = status;
    this.responseText = JSON.stringify({ result, status });
    this.onload?.();
  }
}

function serve(extra: ApiRoutes = {}) {
  let starts = 0;
  const calls = stubApi({
    'GET /me': () => ({ result: aMe() }),
    'GET /organization': () => ({ result: { mount_points: [] } }),
    'GET /tags': () => ({ result: [] }),
    [`GET /sandbox/${SAVED.uuid}`]: () => ({ result: SAVED }),
    [`POST /image/${SAVED.uuid}`]: () => ({ result: starts++ === 0 ? FIRST : SECOND }),
    [`DELETE /image/${FIRST}`]: () => ({ result: true }),
    [`DELETE /image/${SECOND}`]: () => ({ result: true }),
    'POST /terminal': () => ({ result: true }),
    [`PUT /sandbox/${SAVED.uuid}`]: () => ({ result: SAVED }),
    ...extra,
  });
  return calls;
}
const keys = (calls: ApiCall[]) => calls.map((c) => c.key);

async function openEditor() {
  const view = renderPage(<SandboxPage />, {
    url: `/sandbox/edit/${SAVED.uuid}`,
    path: '/sandbox/:action/:uuid',
    elsewhere: <div>workflow page</div>,
  });
  // xterm is its own chunk: the first import of it is slow under a loaded test run.
  await waitFor(() => expect(TerminalSocket.made).toHaveLength(1), { timeout: 10_000 });
  await act(async () => TerminalSocket.made[0]!.serverOpens());
  return view;
}

beforeEach(() => {
  TerminalSocket.made = [];
  FakeUpload.made = [];
  vi.stubGlobal('WebSocket', TerminalSocket);
  vi.stubGlobal('XMLHttpRequest', FakeUpload);
  vi.stubGlobal(
    'ResizeObserver',
    class {
      observe() {}
      disconnect() {}
    },
  );
  stubWindowWidth(1400);
});
afterEach(() => {
  vi.unstubAllGlobals();
  clearToasts();
});

// jsdom renders MUI and xterm slowly on a loaded machine.
describe('the builder terminal', { timeout: 60_000 }, () => {
  it('reconnects to the same container after a drop, and starts another when that one is gone', async () => {
    const calls = serve();
    await openEditor();
    expect(TerminalSocket.made[0]!.url).toBe(`ws://localhost:3000/api/v0/log/${FIRST}`);

    await act(async () => TerminalSocket.made[0]!.close());
    expect(await screen.findByText('Terminal disconnected. Reconnecting...')).toBeInTheDocument();
    await waitFor(() => expect(TerminalSocket.made).toHaveLength(2));
    expect(TerminalSocket.made[1]!.url).toBe(`ws://localhost:3000/api/v0/log/${FIRST}`);
    expect(keys(calls).filter((k) => k.startsWith('POST /image'))).toHaveLength(1);

    // The container did not survive: the socket closes without ever opening.
    await act(async () => TerminalSocket.made[1]!.close());
    await waitFor(() => expect(TerminalSocket.made).toHaveLength(3));
    expect(TerminalSocket.made[2]!.url).toBe(`ws://localhost:3000/api/v0/log/${SECOND}`);
    await waitFor(() => expect(keys(calls)).toContain(`DELETE /image/${FIRST}`));
    expect(keys(calls).filter((k) => k.startsWith('POST /image'))).toHaveLength(2);
  });

  it('after typing, leaving asks first; Save clears the question; leaving stops the container', async () => {
    const calls = serve();
    await openEditor();
    const input = screen.getByRole('region', { name: 'Sandbox terminal' }).querySelector('textarea')!;
    fireEvent.input(input, { target: { value: 'l' }, data: 'l', inputType: 'insertText' });
    await waitFor(() => expect(TerminalSocket.made[0]!.sent.join('')).toContain('l'));

    await userEvent.click(screen.getByRole('link', { name: 'Create New Workflow' }));
    const leave = await screen.findByRole('dialog', { name: 'Leave this page?' });
    await userEvent.click(within(leave).getByRole('button', { name: 'Stay' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.getByTestId('location')).toHaveTextContent(`/sandbox/edit/${SAVED.uuid}`);

    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Sandbox updated correctly.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('link', { name: 'Create New Workflow' }));
    expect(await screen.findByText('workflow page')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await waitFor(() => expect(keys(calls)).toContain(`DELETE /image/${FIRST}`));
  });

  it('resizes through POST /terminal once connected', async () => {
    const calls = serve();
    await openEditor();
    await waitFor(() => expect(calls.filter((c) => c.key === 'POST /terminal')).not.toHaveLength(0));
    expect(calls.find((c) => c.key === 'POST /terminal')!.body).toMatchObject({ uuid: FIRST });
  });
});

describe('uploads', { timeout: 60_000 }, () => {
  const choose = (name: string) => {
    const input = screen
      .getByRole('region', { name: 'Terminal' })
      .querySelector('input[type=file]') as HTMLInputElement;
    fireEvent.change(input, { target: { files: [new File(['hello'], name)] } });
  };

  it('refuses the flagged extensions', async () => {
    const calls = serve();
    await openEditor();
    choose('run.sh');
    expect(await screen.findByText(/are not accepted here/)).toBeInTheDocument();
    expect(keys(calls).filter((k) => k.includes('archive'))).toEqual([]);
  });

  it('asks before overwriting, then uploads with its percentage', async () => {
    const calls = serve({ [`POST /container/${FIRST}/archive`]: () => ({ result: true }) });
    await openEditor();
    choose('data.csv');
    const dialog = await screen.findByRole('dialog', { name: 'Overwrite conflict' });
    expect(dialog).toHaveTextContent('File data.csv already exists, overwrite it?');
    expect(calls.find((c) => c.key === `POST /container/${FIRST}/archive`)!.body).toEqual({
      name: 'data.csv',
    });
    expect(FakeUpload.made).toHaveLength(0);

    await userEvent.click(within(dialog).getByRole('button', { name: 'Overwrite' }));
    await waitFor(() => expect(FakeUpload.made).toHaveLength(1));
    const upload = FakeUpload.made[0]!;
    expect([upload.method, upload.url]).toEqual(['PUT', `/api/v0/container/${FIRST}/archive`]);
    expect((upload.body!.get('file') as File).name).toBe('data.csv');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await act(async () => upload.progress(40, 100));
    expect(screen.getByRole('status')).toHaveTextContent('Uploading data.csv: 40 %');
    await act(async () => upload.answer(200, { name: 'data.csv', path: '/data.csv', size: 5 }));
    expect(await screen.findByText('data.csv uploaded.')).toBeInTheDocument();
  });

  it('a refused upload says Upload failed with the reason', async () => {
    serve({ [`POST /container/${FIRST}/archive`]: () => ({ result: false }) });
    await openEditor();
    choose('big.bin');
    await waitFor(() => expect(FakeUpload.made).toHaveLength(1));
    await act(async () => {
      const upload = FakeUpload.made[0]!;
      upload.status = 413;
      upload.responseText = JSON.stringify({
        result: null,
        status: 413,
        error: { code: 'too_large', message: 'The file is over the 1 GiB limit' },
      });
      upload.onload?.();
    });
    expect(await screen.findByText('Upload failed')).toBeInTheDocument();
    expect(screen.getByText('The file is over the 1 GiB limit')).toBeInTheDocument();
  });
});
