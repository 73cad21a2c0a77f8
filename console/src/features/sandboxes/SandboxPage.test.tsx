import { act, configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEventBase from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubApi, type ApiCall, type ApiRoutes } from '../../test-support/api-stub';
import { aMe } from '../../test-support/fixtures';
import { stubWindowWidth } from '../../test-support/media';
import { clearToasts, renderPage } from '../../test-support/render';
import SandboxPage from './SandboxPage';
import { aSandbox, OTHER_ID, TerminalSocket } from './testing';

const userEvent = userEventBase.setup({ delay: null });
// These pages render MUI (and xterm) in jsdom: on a loaded machine a step can take seconds.
configure({ asyncUtilTimeout: 5000 });
const ME = aMe({ groups: [{ id: 'g-1', name: 'Remote sensing' }] as never });
const CONTAINER = 'c0ffee00-0000-4000-8000-000000000001';

function serve(extra: ApiRoutes = {}) {
  return stubApi({
    'GET /me': () => ({ result: ME }),
    'GET /organization': () => ({ result: { mount_points: ['/data/shared'] } }),
    'GET /tags': () => ({ result: [{ label: 'geo', color: '#ff0000' }] }),
    'GET /image/busybox': () => ({
      result: { image: 'busybox', registry: 'docker.io', versions: [{ value: '1.36' }, { value: 'latest' }] },
    }),
    'POST /image': () => ({ result: CONTAINER }),
    [`DELETE /image/${CONTAINER}`]: () => ({ result: null }),
    'POST /terminal': () => ({ result: null }),
    ...extra,
  });
}
const calls = (all: ApiCall[], key: string) => all.filter((c) => c.key === key);

beforeEach(() => {
  TerminalSocket.made = [];
  vi.stubGlobal('WebSocket', TerminalSocket);
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
  vi.useRealTimers();
  clearToasts();
});

const create = () => renderPage(<SandboxPage />, { url: '/sandbox/create', path: '/sandbox/create' });

// jsdom renders MUI and xterm slowly on a loaded machine.
describe('/sandbox/create', { timeout: 60_000 }, () => {
  it('checks the image 600 ms after the typing stops, once', async () => {
    const api = serve();
    create();
    const image = await screen.findByRole('textbox', { name: 'Source image' });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // One change per keystroke, as typing makes them.
    for (const typed of ['b', 'bu', 'bus', 'busy']) fireEvent.change(image, { target: { value: typed } });
    await act(async () => vi.advanceTimersByTime(599));
    for (const typed of ['busyb', 'busybo', 'busybox']) fireEvent.change(image, { target: { value: typed } });
    await act(async () => vi.advanceTimersByTime(599));
    expect(api.filter((c) => c.path.startsWith('/image'))).toHaveLength(0);
    expect(screen.getByText('Checking the image...')).toBeInTheDocument();
    await act(async () => vi.advanceTimersByTime(1));
    // The query's own batching runs on timers too: let it settle before the real clock returns.
    for (let i = 0; i < 5; i++) await act(() => vi.advanceTimersByTimeAsync(20));
    vi.useRealTimers();
    await waitFor(() =>
      expect(api.filter((c) => c.path.startsWith('/image')).map((c) => c.key)).toEqual([
        'GET /image/busybox',
      ]),
    );
    expect(await screen.findByText('2 versions')).toBeInTheDocument();
  });

  it('says an unknown image is not found and keeps Create disabled', async () => {
    serve({ 'GET /image/nosuch': () => ({ status: 404, error: 'image nosuch not found' }) });
    create();
    await userEvent.type(await screen.findByRole('textbox', { name: 'Source image' }), 'nosuch');
    expect(await screen.findByText('Image not found')).toBeInTheDocument();
    await userEvent.type(screen.getByRole('textbox', { name: 'Sandbox name' }), 'box');
    expect(screen.getByRole('button', { name: 'Create' })).toBeDisabled();
  });

  it('Create starts a container and its terminal; Save validates, then creates the sandbox with it', async () => {
    const api = serve({
      'POST /sandbox': (call) => ({
        status: 201,
        result: aSandbox(9, { name: (call.body as { name: string }).name }),
      }),
    });
    const page = create();
    await userEvent.type(await screen.findByRole('textbox', { name: 'Source image' }), 'busybox');
    expect(await screen.findByText('2 versions')).toBeInTheDocument();
    const name = screen.getByRole('textbox', { name: 'Sandbox name' });
    await userEvent.type(name, 'nd#vi');
    expect(await screen.findByText('Invalid character in name: #')).toBeInTheDocument();
    expect(name).toHaveValue('ndvi');
    const createButton = screen.getByRole('button', { name: 'Create' });
    await waitFor(() => expect(createButton).toBeEnabled());
    await userEvent.click(createButton);

    // xterm is its own chunk: the first import of it is slow under a loaded test run.
    await waitFor(
      () =>
        expect(TerminalSocket.made.map((s) => s.url)).toEqual([
          `ws://localhost:3000/api/v0/log/${CONTAINER}`,
        ]),
      { timeout: 10_000 },
    );
    expect(calls(api, 'POST /image')[0]!.body).toEqual({
      source_image: 'busybox',
      source_version: 'latest',
      name: 'ndvi',
    });
    // The image is chosen: its panel gives way to the terminal (the settings show the source image).
    await waitFor(() =>
      expect(screen.queryByRole('region', { name: 'Sandbox Image' })).not.toBeInTheDocument(),
    );
    await act(async () => TerminalSocket.made[0]!.serverOpens());
    expect(TerminalSocket.made[0]!.sent).toContain('clear\r');
    expect(screen.getByRole('link', { name: 'Create New Workflow' })).toHaveAttribute(
      'href',
      '/workflow/create',
    );

    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Please, enter an entrypoint')).toBeInTheDocument();
    expect(calls(api, 'POST /sandbox')).toHaveLength(0);

    await userEvent.type(screen.getByRole('textbox', { name: 'Entrypoint' }), '/entrypoint.sh');
    await userEvent.click(screen.getByRole('checkbox', { name: '/data/shared' }));
    await userEvent.click(screen.getByRole('checkbox', { name: 'Remote sensing Edit' }));
    await userEvent.keyboard('{Control>}s{/Control}');
    expect(await screen.findByText('Sandbox created correctly.')).toBeInTheDocument();
    expect(calls(api, 'POST /sandbox')[0]!.body).toEqual({
      container_id: CONTAINER,
      name: 'ndvi',
      version: '1.0.0',
      description: '',
      entrypoint: '/entrypoint.sh',
      tags: [],
      variables: [],
      constraints: { cpu: 500, memory: 512, disk: 102 },
      mount_points: [{ source: '/data/shared', destination: '/data/shared', checked: true }],
      architecture: 'amd64',
      gpu_required: false,
      permissions: { 'g-1': { read: true, write: true, execute: false } },
      source_image: { image: 'busybox', version: 'latest' },
      visibility: { type: 'group', locked: false },
    });
    expect(screen.getByRole('heading', { name: 'Edit Sandbox' })).toBeInTheDocument();

    page.unmount();
    await waitFor(() => expect(calls(api, `DELETE /image/${CONTAINER}`)).toHaveLength(1));
  });

  it.each([
    [{ version: '' }, 'Please, enter a valid version'],
    [{ version: '-x' }, 'Invalid sandbox version format'],
    [{ cpu: '0' }, 'Please, enter valid resources values'],
    [{ name: '' }, 'Please, enter a valid name'],
  ])('Save with %j says %s', async (patch, message) => {
    const uuid = aSandbox(4).uuid;
    const api = serve({
      [`GET /sandbox/${uuid}`]: () => ({ result: aSandbox(4) }),
      [`POST /image/${uuid}`]: () => ({ result: CONTAINER }),
    });
    renderPage(<SandboxPage />, { url: `/sandbox/edit/${uuid}`, path: '/sandbox/:action/:uuid' });
    const settings = await screen.findByRole('region', { name: 'Settings' });
    const field = (label: string) =>
      within(settings).getByRole(label === 'CPU' ? 'spinbutton' : 'textbox', { name: label });
    if ('version' in patch) {
      await userEvent.clear(field('Version'));
      if (patch.version) await userEvent.type(field('Version'), patch.version);
    }
    if ('cpu' in patch) {
      await userEvent.clear(field('CPU'));
      await userEvent.type(field('CPU'), patch.cpu!);
    }
    if ('name' in patch) await userEvent.clear(field('Name'));
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(message)).toBeInTheDocument();
    expect(screen.getByText('Settings error')).toBeInTheDocument();
    expect(api.filter((c) => c.method === 'PUT' || c.key === 'POST /sandbox')).toHaveLength(0);
  });
});

describe('/sandbox/edit and /sandbox/view', { timeout: 60_000 }, () => {
  const SAVED = aSandbox(5, {
    name: 'ndvi',
    entrypoint: '/run.sh',
    permissions: { 'g-1': { read: true, write: false, execute: false } },
    image_id: 'sandflow.local/org/ndvi:1.0.0@sha256:abc',
  });
  const edit = (action = 'edit') =>
    renderPage(<SandboxPage />, { url: `/sandbox/${action}/${SAVED.uuid}`, path: '/sandbox/:action/:uuid' });

  it('starts the sandbox container at once and saves with PUT; a 409 says the sandbox is used elsewhere', async () => {
    let conflict = false;
    const api = serve({
      [`GET /sandbox/${SAVED.uuid}`]: () => ({ result: SAVED }),
      [`POST /image/${SAVED.uuid}`]: () => ({ result: CONTAINER }),
      [`PUT /sandbox/${SAVED.uuid}`]: () =>
        conflict ? { status: 409, error: 'conflict' } : { result: SAVED },
    });
    edit();
    expect(await screen.findByRole('heading', { name: 'Edit Sandbox' })).toBeInTheDocument();
    await waitFor(() =>
      expect(calls(api, `POST /image/${SAVED.uuid}`).map((c) => c.body)).toEqual([{ sandbox_name: 'ndvi' }]),
    );
    expect(screen.queryByRole('region', { name: 'Sandbox Image' })).not.toBeInTheDocument();
    expect(screen.getByTestId('base-image')).toHaveTextContent('sandflow.local/org/ndvi:1.0.0@sha256:abc');

    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Sandbox updated correctly.')).toBeInTheDocument();
    const put = calls(api, `PUT /sandbox/${SAVED.uuid}`)[0]!.body as Record<string, unknown>;
    expect(put).toMatchObject({
      uuid: SAVED.uuid,
      container_id: CONTAINER,
      name: 'ndvi',
      entrypoint: '/run.sh',
    });
    expect(put).not.toHaveProperty('source_image');

    conflict = true;
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(
      await screen.findByText("Sandbox can't be update because in use in external workflows."),
    ).toBeInTheDocument();
  });

  it('a new version is saved as a new sandbox from the same source image', async () => {
    const api = serve({
      [`GET /sandbox/${SAVED.uuid}`]: () => ({ result: SAVED }),
      [`POST /image/${SAVED.uuid}`]: () => ({ result: CONTAINER }),
      'POST /sandbox': () => ({ status: 201, result: aSandbox(6, { version: '2.0.0' }) }),
    });
    edit();
    const version = await screen.findByRole('textbox', { name: 'Version' });
    await userEvent.clear(version);
    await userEvent.type(version, '2.0.0');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Sandbox created correctly.')).toBeInTheDocument();
    expect(calls(api, 'POST /sandbox')[0]!.body).toMatchObject({
      version: '2.0.0',
      source_image: { image: 'busybox', version: 'latest' },
    });
  });

  it('ticking in the authorizations follows the rules: edit forces view, unticking view clears edit', async () => {
    serve({
      [`GET /sandbox/${SAVED.uuid}`]: () => ({ result: SAVED }),
      [`POST /image/${SAVED.uuid}`]: () => ({ result: CONTAINER }),
    });
    edit();
    const table = await screen.findByRole('table', { name: 'Authorizations' });
    const box = (name: string) => within(table).getByRole('checkbox', { name });
    expect(box('Remote sensing View')).toBeChecked();
    await userEvent.click(box('Public Edit'));
    expect(box('Public View')).toBeChecked();
    await userEvent.click(box('Public View'));
    expect(box('Public Edit')).not.toBeChecked();
    await userEvent.click(box('Public Use'));
    expect(
      [box('Public View'), box('Public Edit'), box('Public Use')].map((b) => (b as HTMLInputElement).checked),
    ).toEqual([false, false, true]);
  });

  it('view mode is read-only: no Save, no authorizations, no container', async () => {
    const api = serve({ [`GET /sandbox/${SAVED.uuid}`]: () => ({ result: SAVED }) });
    edit('view');
    expect(await screen.findByRole('heading', { name: 'View Sandbox' })).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Name' })).toBeDisabled();
    expect(screen.getByRole('textbox', { name: 'Entrypoint' })).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'Save' })).not.toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Authorizations' })).not.toBeInTheDocument();
    await userEvent.keyboard('{Control>}s{/Control}');
    expect(api.filter((c) => c.method !== 'GET')).toEqual([]);
  });

  it('someone without write permission asking to edit gets the view page', async () => {
    const theirs = {
      ...SAVED,
      author_id: OTHER_ID,
      user_access: { read: true, write: false, execute: false, owner: false },
    };
    serve({ [`GET /sandbox/${SAVED.uuid}`]: () => ({ result: theirs }) });
    edit();
    await waitFor(() =>
      expect(screen.getByTestId('location')).toHaveTextContent(`/sandbox/view/${SAVED.uuid}`),
    );
  });

  it('an unknown sandbox says so', async () => {
    serve();
    edit();
    expect(
      await screen.findByText('This sandbox does not exist or is not shared with you.'),
    ).toBeInTheDocument();
  });
});
