/**
 * What the user sees on stderr while waiting on asynchronous work. On a
 * terminal: one spinner line, redrawn in place, with the status and the time
 * waited. Elsewhere (pipes, CI logs): one line per change of status. Nothing
 * at all with --quiet. stdout is left alone, so --json output stays clean.
 */
export interface Progress {
  update(label: string, status: string): void;
  done(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function progress(stream: NodeJS.WriteStream, opts: { quiet: boolean }): Progress {
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
  if (opts.quiet) return { update() {}, done() {} };
  const states = new Map<string, string>();
  if (!stream.isTTY) {
    return {
      update(label, status) {
        if (states.get(label) === status) return;
        states.set(label, status);
        stream.write(`${label}: ${status} (${elapsed()})\n`);
      },
      done() {},
    };
  }
  let frame = 0;
  const draw = () => {
    const text = [...states].map(([label, status]) => `${label} ${status}`).join(' · ');
    stream.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${text} ${elapsed()}`);
  };
  const timer = setInterval(draw, 100);
  timer.unref();
  return {
    update(label, status) {
      states.set(label, status);
      draw();
    },
    done() {
      clearInterval(timer);
      stream.write('\r\x1b[2K');
    },
  };
}
