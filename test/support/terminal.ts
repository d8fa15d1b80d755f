import { Writable } from 'node:stream';
import { inTerminal, loadColors, makeTerminal } from '../../src/commands/shared/terminal.js';

/** A stream that keeps what is written to it. */
export function collected(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

/**
 * Runs a command's code (from src) with streams of its own: what it printed, and the exit code it set.
 * `work` may look at what is written so far.
 */
export async function captured<T>(
  work: (written: { stdout: () => string; stderr: () => string }) => Promise<T>,
): Promise<{ value: T; stdout: string; stderr: string; exitCode?: number }> {
  await loadColors();
  const stdout = collected();
  const stderr = collected();
  const t = makeTerminal({ stdout: stdout.stream, stderr: stderr.stream, env: { NO_COLOR: '1' }, argv: [process.execPath, 'awb'] });
  const value = await inTerminal(t, () => work({ stdout: stdout.text, stderr: stderr.text }));
  return { value, stdout: stdout.text(), stderr: stderr.text(), exitCode: t.exitCode };
}
