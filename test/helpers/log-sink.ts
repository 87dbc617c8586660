import { Writable } from 'node:stream';

/** A stream for a server's logger (`createLogger(config, sink)`) that parses each JSON line into `lines`, for a test to read. */
export function jsonLogSink(lines: Array<Record<string, unknown>>): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
}
