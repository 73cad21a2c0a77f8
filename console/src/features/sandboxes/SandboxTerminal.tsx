import { Box } from '@mui/material';
import { AttachAddon } from '@xterm/addon-attach';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef } from 'react';
import { TERMINAL_COLS, TERMINAL_HEIGHT, TERMINAL_ROWS } from './rules';

/**
 * The builder's terminal socket, spec 1 §7.2's {host}/log/{containerId} under /api/v0: the
 * access cookie is scoped to /api/v0 (a socket at /log would go unauthenticated) and the dev
 * proxy forwards only /api.
 */
export const terminalUrl = (container: string) =>
  `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v0/log/${encodeURIComponent(container)}`;

export interface SandboxTerminalProps {
  container: string;
  label: string;
  /** The person typed something: the container now differs from the saved sandbox. */
  onTyped: () => void;
  /** The socket closed without being asked to; `opened` says whether it had been connected. */
  onClosed: (opened: boolean) => void;
  onResize: (rows: number, cols: number) => void;
}

const isSaveShortcut = (event: KeyboardEvent) =>
  (event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 's';

/**
 * xterm attached to the container's shell (raw text both ways, @xterm/addon-attach): 160×46
 * to start with, then fitted to a box 77 % of the window high. Ctrl+S is left to the page (Save).
 */
export default function SandboxTerminal({
  container,
  label,
  onTyped,
  onClosed,
  onResize,
}: SandboxTerminalProps) {
  const host = useRef<HTMLDivElement>(null);
  // The callbacks change with every render of the page; the socket must not.
  const callbacks = useRef({ onTyped, onClosed, onResize });
  callbacks.current = { onTyped, onClosed, onResize };

  useEffect(() => {
    const terminal = new Terminal({
      cols: TERMINAL_COLS,
      rows: TERMINAL_ROWS,
      cursorBlink: true,
      fontSize: 13,
      theme: { background: '#0d0d0f' },
    });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    terminal.attachCustomKeyEventHandler((event) => !isSaveShortcut(event));
    terminal.open(host.current!);

    let opened = false;
    let disposed = false;
    const resize = () => {
      if (disposed) return;
      fit.fit();
      if (opened) callbacks.current.onResize(terminal.rows, terminal.cols);
    };
    const socket = new WebSocket(terminalUrl(container));
    socket.onopen = () => {
      opened = true;
      terminal.loadAddon(new AttachAddon(socket));
      resize();
      // The spec's alias for clear: the prompt starts on an empty screen.
      socket.send('clear\r');
      terminal.focus();
    };
    socket.onclose = () => {
      if (!disposed) callbacks.current.onClosed(opened);
    };
    const typed = terminal.onData(() => callbacks.current.onTyped());
    let pending: ReturnType<typeof setTimeout> | undefined;
    const observer = new ResizeObserver(() => {
      clearTimeout(pending);
      pending = setTimeout(resize, 100);
    });
    observer.observe(host.current!);

    return () => {
      disposed = true;
      clearTimeout(pending);
      observer.disconnect();
      typed.dispose();
      socket.close(1000);
      terminal.dispose();
    };
  }, [container]);

  return (
    <Box
      ref={host}
      role="region"
      aria-label={label}
      data-testid="terminal"
      sx={{
        height: `${TERMINAL_HEIGHT * 100}vh`,
        bgcolor: '#0d0d0f',
        p: 0.5,
        borderRadius: 1,
        overflow: 'hidden',
      }}
    />
  );
}
