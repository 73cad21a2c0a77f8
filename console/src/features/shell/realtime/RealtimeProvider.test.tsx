import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keys, type NotificationList } from '../../../api/queries';
import { stubApi } from '../../../test-support/api-stub';
import { clearToasts, newQueryClient, renderWithProviders } from '../../../test-support/render';
import { RealtimeDot } from '../RealtimeDot';
import { FakeWebSocket, installFakeWebSocket } from './fake-websocket';
import { toNotification } from './messages';
import { RealtimeProvider, useRealtime } from './RealtimeProvider';

// MUI in jsdom is slow on a busy machine: role queries walk the whole tree.
vi.setConfig({ testTimeout: 30_000 });

function Dot() {
  const { status, reconnect } = useRealtime();
  return <RealtimeDot status={status} onReconnect={reconnect} />;
}

function renderProvider() {
  const client = newQueryClient();
  const view = renderWithProviders(
    <RealtimeProvider url="ws://console.test/api/v0/notifications">
      <Dot />
    </RealtimeProvider>,
    { client },
  );
  return { ...view, client, socket: FakeWebSocket.latest() };
}

const runMessage = {
  id: 41,
  message_title: 'Run completed',
  message_type: 'success',
  message_text: 'nightly-import finished in 2 min',
  message_data: JSON.stringify({ action: 'run', data: { uuid: 'sess-1', run_uuid: 'run-9' } }),
};

describe('realtime provider', () => {
  beforeEach(() => {
    installFakeWebSocket();
    stubApi();
  });
  afterEach(() => {
    clearToasts();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('shows the socket state on the dot', () => {
    const { socket } = renderProvider();
    expect(screen.getByRole('button', { name: 'Realtime: connecting' })).toBeInTheDocument();
    act(() => socket.serverOpens());
    expect(screen.getByRole('button', { name: 'Realtime: connected' })).toBeInTheDocument();
  });

  it('acknowledges a message, raises its toast and adds it to the bell', () => {
    const { socket, client } = renderProvider();
    act(() => socket.serverOpens());
    act(() => socket.serverSends(runMessage));

    expect(socket.sent).toEqual(['Ok']);
    const toast = screen.getByTestId('toast');
    expect(toast).toHaveTextContent('Run completed');
    expect(toast).toHaveTextContent('nightly-import finished in 2 min');
    expect(toast).toHaveClass('MuiAlert-colorSuccess');
    const list = client.getQueryData<NotificationList>(keys.notifications)!;
    expect(list.unseen).toBe(1);
    expect(list.items[0]).toMatchObject({
      id: 41,
      title: 'Run completed',
      type: 'success',
      text: 'nightly-import finished in 2 min',
      link: '/dashboard/session/sess-1/run-9',
      message_data: { action: 'run', uuid: 'sess-1', run_uuid: 'run-9' },
      seen: false,
    });
  });

  it('a message without data is only a toast (primary when it names no colour)', () => {
    const { socket, client } = renderProvider();
    act(() => socket.serverOpens());
    act(() =>
      socket.serverSends({
        id: 42,
        message_title: 'Hello',
        message_type: '',
        message_text: 'Welcome',
        message_data: '',
      }),
    );
    expect(socket.sent).toEqual(['Ok']);
    expect(screen.getByTestId('toast')).toHaveClass('MuiAlert-colorInfo');
    expect(client.getQueryData(keys.notifications)).toBeUndefined();
  });

  it('reports a dropped socket once with the danger toast, then reconnects and asks again for what is shown', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { socket, client } = renderProvider();
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    act(() => socket.serverOpens());
    // The first connection is no reconnection: nothing to ask again.
    expect(invalidate).not.toHaveBeenCalled();
    act(() => socket.drops());
    const toast = screen.getByTestId('toast');
    expect(toast).toHaveTextContent('Realtime update down');
    expect(toast).toHaveTextContent('Connection with the notification system is down.');
    expect(toast).toHaveClass('MuiAlert-colorError');
    expect(screen.getByRole('button', { name: 'Realtime: connecting' })).toBeInTheDocument();

    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(FakeWebSocket.instances).toHaveLength(2);
    act(() => FakeWebSocket.latest().serverOpens());
    expect(screen.getByRole('button', { name: 'Realtime: connected' })).toBeInTheDocument();
    expect(screen.getAllByTestId('toast')).toHaveLength(1);
    // Messages sent while it was down are lost: the active queries are asked again, except the
    // bell's list, which holds the realtime messages themselves.
    expect(invalidate).toHaveBeenCalledTimes(1);
    const filters = invalidate.mock.calls[0]![0]!;
    expect(filters.refetchType).toBe('active');
    const asks = (queryKey: readonly unknown[]) =>
      filters.predicate!({ queryKey } as unknown as Parameters<NonNullable<typeof filters.predicate>>[0]);
    expect(asks(['sessions'])).toBe(true);
    expect(asks(keys.notifications)).toBe(false);
  });

  it('closes with 1000 when the shell goes away (sign-out)', () => {
    const { socket, unmount } = renderProvider();
    act(() => socket.serverOpens());
    unmount();
    expect(socket.closedWith).toBe(1000);
  });
});

describe('realtime dot', () => {
  it.each([
    ['closed', 1],
    ['connected', 0],
    ['connecting', 0],
  ] as const)('a click when %s reconnects %i time(s)', async (status, times) => {
    const onReconnect = vi.fn();
    renderWithProviders(<RealtimeDot status={status} onReconnect={onReconnect} />);
    await userEvent.click(screen.getByRole('button', { name: `Realtime: ${status}` }));
    expect(onReconnect).toHaveBeenCalledTimes(times);
  });
});

describe('realtime message → notification', () => {
  const at = new Date('2026-05-04T10:00:00Z');
  it.each([
    [
      'run data (link to the run dashboard)',
      runMessage.message_data,
      '/dashboard/session/sess-1/run-9',
      { action: 'run', uuid: 'sess-1', run_uuid: 'run-9' },
    ],
    [
      'data without a run (link from the action)',
      JSON.stringify({ action: 'sandbox', data: { uuid: 'sb-1' } }),
      '/sandbox/view/sb-1',
      { action: 'sandbox', uuid: 'sb-1' },
    ],
  ])('%s', (_label, message_data, link, data) => {
    expect(toNotification({ ...runMessage, message_data }, at)).toEqual({
      id: 41,
      title: 'Run completed',
      type: 'success',
      text: 'nightly-import finished in 2 min',
      timestamp: '2026-05-04T10:00:00.000Z',
      link,
      message_data: data,
      seen: false,
    });
  });

  it.each(['', '   ', 'not json', 'null', '{}'])('no notification for message_data %j', (message_data) => {
    expect(toNotification({ ...runMessage, message_data }, at)).toBeNull();
  });
});
