// Reading a step's log file without loading it: the last N lines found by reading backwards in
// blocks, the whole file as a stream of lines, and follow (new bytes as they are appended).
import fs from 'node:fs';

const BLOCK = 64 * 1024;

/** Byte offset where the last `lines` lines of the file start (a final line without "\n" counts). */
export async function tailOffset(file: string, lines: number): Promise<number> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (lines <= 0) return size;
    const buffer = Buffer.allocUnsafe(BLOCK);
    let end = size;
    let newlines = 0;
    // A trailing newline ends the last line; it does not start another.
    let skipLast = true;
    while (end > 0) {
      const start = Math.max(0, end - BLOCK);
      const { bytesRead } = await handle.read(buffer, 0, end - start, start);
      for (let i = bytesRead - 1; i >= 0; i--) {
        if (buffer[i] !== 0x0a) {
          skipLast = false;
          continue;
        }
        if (skipLast) {
          skipLast = false;
          continue;
        }
        if (++newlines === lines) return start + i + 1;
      }
      end = start;
    }
    return 0;
  } finally {
    await handle.close();
  }
}

/**
 * The lines of `file` from byte `from`, in batches; with `live` it keeps reading what is appended
 * until `live()` answers false (then reads what is left and ends). A last line without "\n" is
 * given once the stream ends.
 */
export async function* readLines(
  file: string,
  from: number,
  options: { live?: () => Promise<boolean>; pollMs?: number; signal?: AbortSignal } = {},
): AsyncGenerator<string[]> {
  const handle = await fs.promises.open(file, 'r');
  const buffer = Buffer.allocUnsafe(BLOCK * 4);
  let position = from;
  let partial = '';
  const decoder = new TextDecoder();
  try {
    for (;;) {
      if (options.signal?.aborted) return;
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead > 0) {
        position += bytesRead;
        const lines = (partial + decoder.decode(buffer.subarray(0, bytesRead), { stream: true })).split('\n');
        partial = lines.pop()!;
        if (lines.length) yield lines;
        continue;
      }
      // At the end: done unless the step is still writing.
      const more = options.live ? await options.live() : false;
      if (!more) {
        const { bytesRead: late } = await handle.read(buffer, 0, 1, position);
        if (late > 0) continue; // written between the read and the check
        const last = partial + decoder.decode();
        if (last) yield [last];
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
    }
  } finally {
    await handle.close();
  }
}
