import { Box } from '@mui/material';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useImperativeHandle, useRef, type Ref } from 'react';
import { LOG_MORE, logUrl, parseFrame } from './logSocket';

/** Spec 2 §9: the log terminal is 160 columns by 26 rows. */
export const LOG_COLS = 160;
export const LOG_ROWS = 26;

export type LogState = 'connecting' | 'connected' | 'ended' | 'error';
export interface LogTerminalHandle {
  loadEarlier: () => void;
}

/**
 * xterm showing a step's log through the log socket: the last lines, then what the step prints
 * while it runs. Earlier lines come on demand (the terminal is redrawn with them in front), so a
 * huge log never reaches the browser whole; the download has it all.
 */
export default function LogTerminal({
  run,
  sandboxId,
  name,
  label,
  onState,
  onComplete,
  handle,
}: {
  run: string;
  sandboxId: string;
  name: string;
  label: string;
  onState: (state: LogState, message?: string) => void;
  onComplete: (complete: boolean) => void;
  handle?: Ref<LogTerminalHandle>;
}) {
  const host = useRef<HTMLDivElement>(null);
  const socket = useRef<WebSocket | null>(null);
  const callbacks = useRef({ onState, onComplete });
  callbacks.current = { onState, onComplete };

  useImperativeHandle(handle, () => ({
    loadEarlier: () => {
      if (socket.current?.readyState === WebSocket.OPEN)
        socket.current.send(JSON.stringify({ more: LOG_MORE }));
    },
  }));

  useEffect(() => {
    const terminal = new Terminal({
      cols: LOG_COLS,
      rows: LOG_ROWS,
      convertEol: true,
      disableStdin: true,
      fontSize: 12,
      scrollback: 200_000,
      theme: { background: '#0d0d0f' },
    });
    terminal.open(host.current!);
    // What is on screen, to redraw with earlier lines in front.
    let shown = '';
    let failed = false;
    let disposed = false;
    callbacks.current.onState('connecting');
    callbacks.current.onComplete(false);
    const ws = new WebSocket(logUrl(run, sandboxId, name));
    socket.current = ws;
    ws.onopen = () => callbacks.current.onState('connected');
    ws.onmessage = (event) => {
      const frame = parseFrame(event.data);
      if (!frame) return;
      if (frame.kind === 'log') {
        shown += frame.text;
        terminal.write(frame.text);
      } else if (frame.kind === 'earlier') {
        shown = frame.text + shown;
        terminal.reset();
        terminal.write(shown);
        callbacks.current.onComplete(frame.complete);
      } else if (frame.kind === 'end') {
        callbacks.current.onState('ended');
      } else if (frame.kind === 'error') {
        failed = true;
        callbacks.current.onState('error', frame.message);
      }
    };
    ws.onerror = () => {
      failed = true;
      if (!disposed) callbacks.current.onState('error');
    };
    ws.onclose = () => {
      if (!disposed && !failed && ws.readyState === WebSocket.CLOSED) callbacks.current.onState('ended');
    };
    return () => {
      disposed = true;
      socket.current = null;
      ws.close(1000);
      terminal.dispose();
    };
  }, [run, sandboxId, name]);

  return (
    <Box
      ref={host}
      role="region"
      aria-label={label}
      data-testid="log-terminal"
      sx={{ bgcolor: '#0d0d0f', p: 0.5, borderRadius: 1, overflow: 'auto', maxWidth: '100%' }}
    />
  );
}
