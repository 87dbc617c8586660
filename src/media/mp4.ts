/**
 * Just enough ISO-BMFF parsing to check what our encoder produced (and to
 * validate MP4s in tests) without shipping ffprobe.
 */
export interface Mp4Box {
  type: string;
  /** Offset of the box header. */
  start: number;
  /** Offset of the payload (after the header). */
  body: number;
  end: number;
}

export function* mp4Boxes(buf: Buffer, from = 0, to = buf.length): Generator<Mp4Box> {
  let pos = from;
  while (pos + 8 <= to) {
    let size = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    let header = 8;
    if (size === 1) {
      if (pos + 16 > to) return;
      size = Number(buf.readBigUInt64BE(pos + 8));
      header = 16;
    } else if (size === 0) {
      size = to - pos;
    }
    if (size < header || pos + size > to) return;
    yield { type, start: pos, body: pos + header, end: pos + size };
    pos += size;
  }
}

export interface Mp4Info {
  majorBrand: string;
  compatibleBrands: string[];
  timescale: number;
  /** In timescale units, from the movie header. */
  duration: number;
  durationS: number;
  /** Handler type (e.g. "vide", "soun") and media duration of each track. */
  tracks: Array<{ type: string; durationS: number }>;
}

/** mvhd and mdhd share this layout: timescale and duration after the dates. */
function readTimes(buf: Buffer, box: Mp4Box): { timescale: number; duration: number } {
  const version = buf.readUInt8(box.body);
  return version === 1
    ? { timescale: buf.readUInt32BE(box.body + 20), duration: Number(buf.readBigUInt64BE(box.body + 24)) }
    : { timescale: buf.readUInt32BE(box.body + 12), duration: buf.readUInt32BE(box.body + 16) };
}

function child(buf: Buffer, parent: Mp4Box, type: string): Mp4Box | undefined {
  for (const b of mp4Boxes(buf, parent.body, parent.end)) if (b.type === type) return b;
  return undefined;
}

/** Reads ftyp and mvhd; null when the bytes are not a well-formed MP4. */
export function parseMp4(bytes: Uint8Array): Mp4Info | null {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    const top = [...mp4Boxes(buf)];
    const ftyp = top[0];
    if (!ftyp || ftyp.type !== 'ftyp' || ftyp.end - ftyp.body < 8) return null;
    const majorBrand = buf.toString('latin1', ftyp.body, ftyp.body + 4);
    const compatibleBrands: string[] = [];
    for (let p = ftyp.body + 8; p + 4 <= ftyp.end; p += 4) compatibleBrands.push(buf.toString('latin1', p, p + 4));
    const moov = top.find((b) => b.type === 'moov');
    if (!moov) return null;
    const mvhd = child(buf, moov, 'mvhd');
    if (!mvhd) return null;
    const { timescale, duration } = readTimes(buf, mvhd);
    if (timescale === 0) return null;
    const tracks: Mp4Info['tracks'] = [];
    for (const trak of mp4Boxes(buf, moov.body, moov.end)) {
      if (trak.type !== 'trak') continue;
      const mdia = child(buf, trak, 'mdia');
      const hdlr = mdia && child(buf, mdia, 'hdlr');
      const mdhd = mdia && child(buf, mdia, 'mdhd');
      if (!hdlr || !mdhd) continue;
      const t = readTimes(buf, mdhd);
      tracks.push({ type: buf.toString('latin1', hdlr.body + 8, hdlr.body + 12), durationS: t.timescale ? t.duration / t.timescale : 0 });
    }
    return { majorBrand, compatibleBrands, timescale, duration, durationS: duration / timescale, tracks };
  } catch {
    return null;
  }
}
