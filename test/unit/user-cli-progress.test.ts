import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progress } from '../../src/user-cli/progress.js';

function fakeStream(isTTY: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  const s = new PassThrough();
  let out = '';
  s.on('data', (c: Buffer) => (out += c.toString('utf8')));
  Object.assign(s, { isTTY });
  return { stream: s as unknown as NodeJS.WriteStream, text: () => out };
}

describe('the progress indicator of the user CLI', () => {
  it('on a terminal: one line redrawn in place with a spinner, the status and the time, cleared at the end', async () => {
    const { stream, text } = fakeStream(true);
    const p = progress(stream, { quiet: false });
    p.update('gen_1', 'queued');
    await new Promise((r) => setTimeout(r, 250));
    p.update('gen_1', 'running');
    p.done();
    const out = text();
    expect(out).toMatch(/\r\x1b\[2K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] gen_1 queued \d+\.\ds/);
    expect(out).toMatch(/gen_1 running \d+\.\ds/);
    expect(out.split('\r\x1b[2K').length).toBeGreaterThan(3); // redrawn by the timer too, not only on updates
    expect(out.endsWith('\r\x1b[2K')).toBe(true);
    expect(out).not.toContain('\n');
  });

  it('elsewhere: a line per change of status, none for a repeat', () => {
    const { stream, text } = fakeStream(false);
    const p = progress(stream, { quiet: false });
    p.update('gen_1', 'queued');
    p.update('gen_1', 'queued');
    p.update('gen_1', 'succeeded');
    p.done();
    expect(text()).toMatch(/^gen_1: queued \(\d+\.\ds\)\ngen_1: succeeded \(\d+\.\ds\)\n$/);
  });

  it('nothing with --quiet', () => {
    const { stream, text } = fakeStream(true);
    const p = progress(stream, { quiet: true });
    p.update('gen_1', 'queued');
    p.done();
    expect(text()).toBe('');
  });
});
