import { WebSocket } from 'ws';

// What a test reads from a builder terminal (a shell's onData, a terminal socket's messages): the
// text so far, and a bounded wait for a pattern that fails showing what the terminal did show.
export interface TerminalOutput {
  append: (data: string | Buffer) => void;
  output: () => string;
  /** Polls every 25 ms, `attempts` times; answers the match. */
  waitFor: (pattern: RegExp) => Promise<RegExpMatchArray>;
}

export function terminalOutput(attempts = 600): TerminalOutput {
  let out = '';
  return {
    append: (data) => (out += data.toString()),
    output: () => out,
    waitFor: async (pattern) => {
      for (let i = 0; i < attempts; i++) {
        const m = out.match(pattern);
        if (m) return m;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`the terminal never showed ${String(pattern)}; it shows:\n${out}`);
    },
  };
}

export interface TerminalSocket extends Omit<TerminalOutput, 'append'> {
  socket: WebSocket;
  run(line: string): void;
  closed: Promise<void>;
}

/**
 * The sandbox page's side of the terminal socket (xterm's attach protocol: raw text both ways) at
 * `ws://<base>/log/<container>`, signed in with the access cookie; resolves at the first prompt.
 */
export async function openTerminalSocket(
  base: string,
  container: string,
  token: string,
  attempts = 600,
): Promise<TerminalSocket> {
  const socket = new WebSocket(`ws://${base}/log/${container}`, {
    headers: { cookie: `sf_access=${encodeURIComponent(token)}` },
  });
  const { append, output, waitFor } = terminalOutput(attempts);
  socket.on('message', (data: Buffer) => append(data));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_req, res) =>
      reject(new Error(`terminal refused: HTTP ${res.statusCode}`)),
    );
    socket.once('error', reject);
  });
  await waitFor(/[$#] /);
  return { socket, output, waitFor, run: (line) => socket.send(`${line}\r`), closed };
}
