import { useEffect, useState, type ReactNode } from 'react';
import type { Generation, GenerationOutput } from '../api/types.js';
import { modalityInfo } from '../lib/modalities.js';
import { ON_PALETTE } from '../lib/palette.js';

/** The 3D viewer is big (three.js): it is fetched the first time a mesh is shown. */
let modelViewerLoad: Promise<unknown> | null = null;

function MeshViewer({ output, poster, alt }: { output: GenerationOutput; poster?: string | undefined; alt: string }) {
  const [ready, setReady] = useState(false);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    modelViewerLoad ??= import('@google/model-viewer');
    modelViewerLoad.then(
      () => setReady(true),
      (err: Error) => setFailed(err.message),
    );
  }, []);
  if (failed) return <p className="muted">The 3D viewer could not be loaded ({failed}).</p>;
  if (!ready) return poster ? <img src={poster} alt={alt} className="media" /> : <div className="media media-placeholder">Loading the 3D viewer…</div>;
  // No auto-rotate: it redraws every frame, which on a machine without a GPU (software WebGL) keeps a core busy.
  return (
    <model-viewer
      src={output.url}
      {...(poster ? { poster } : {})}
      alt={alt}
      camera-controls
      shadow-intensity="1"
      interaction-prompt="none"
      className="media media-3d"
      data-testid="model-viewer"
    />
  );
}

export function OutputView({ output, poster, alt }: { output: GenerationOutput; poster?: string | undefined; alt: string }) {
  switch (output.type) {
    case 'image':
    case 'thumbnail':
      return <img src={output.url} alt={alt} className="media" width={output.width ?? undefined} height={output.height ?? undefined} />;
    case 'video':
      return (
        <video src={output.url} poster={poster} controls playsInline preload="metadata" className="media" aria-label={alt}>
          <track kind="captions" />
        </video>
      );
    case 'audio':
      return <audio src={output.url} controls preload="metadata" className="media-audio" aria-label={alt} />;
    case 'mesh':
      return <MeshViewer output={output} poster={poster} alt={alt} />;
  }
}

/**
 * A flagged file is veiled (blurred) until the viewer asks to see it; a blocked one is not shown at all (its URL
 * answers 451 anyway): contract §11.
 */
function Moderated({ output, children }: { output: GenerationOutput; children: ReactNode }) {
  const [revealed, setRevealed] = useState(false);
  if (output.moderation_status === 'blocked') {
    return (
      <div className="media media-placeholder moderation-blocked" data-testid="output-blocked">
        Blocked by moderation: not shown, not charged.
      </div>
    );
  }
  if (output.moderation_status !== 'flagged' || revealed) return <>{children}</>;
  return (
    <div className="moderation-veil" data-testid="output-flagged">
      <div className="moderation-veiled" aria-hidden="true">
        {children}
      </div>
      <button type="button" className="btn btn-sm moderation-reveal" onClick={() => setRevealed(true)}>
        Flagged by moderation: show it
      </button>
    </div>
  );
}

/** A generation's outputs in place: images, <video> (with its thumbnail as poster), <audio>, a 3D viewer; chat text. */
export function GenerationMedia({ generation: g }: { generation: Generation }) {
  const thumb = g.outputs.find((o) => o.type === 'thumbnail');
  const main = g.outputs.filter((o) => o.type !== 'thumbnail');
  const alt = g.prompt ? `${modalityInfo(g.modality).label} from “${g.prompt.slice(0, 120)}”` : `${modalityInfo(g.modality).label} output`;
  return (
    <div className="outputs">
      {g.message && (
        <div className="chat-bubble chat-assistant" data-testid="chat-reply">
          {g.message.content}
        </div>
      )}
      {main.map((o, i) => (
        <figure key={o.id} className="output" data-testid={`output-${o.type}`}>
          <Moderated output={o}>
            <OutputView output={o} poster={thumb?.moderation_status === 'approved' || thumb?.moderation_status === 'flagged' ? thumb.url : undefined} alt={main.length > 1 ? `${alt} (${i + 1} of ${main.length})` : alt} />
          </Moderated>
          <figcaption className="muted small">
            {o.mime}
            {o.width && o.height ? ` · ${o.width}×${o.height}` : ''}
            {o.duration_s ? ` · ${o.duration_s} s` : ''}
            {' · '}
            <span className={`moderation moderation-${o.moderation_status}`} data-testid="moderation-status">
              moderation: {o.moderation_status}
            </span>
            {o.moderation_status !== 'blocked' && (
              <>
                {' · '}
                <a href={o.url} target="_blank" rel="noreferrer">
                  Open file
                </a>
              </>
            )}
          </figcaption>
        </figure>
      ))}
    </div>
  );
}

function ModalityGlyph({ modality }: { modality: string }) {
  const info = modalityInfo(modality);
  return (
    <span className="glyph" style={{ background: info.color.light, color: ON_PALETTE }} aria-hidden="true">
      {info.label.slice(0, 2)}
    </span>
  );
}

/** A small preview for lists: the image or thumbnail when there is one, else the modality's glyph. */
export function Thumb({ generation: g }: { generation: Generation }) {
  // Blocked pictures are never shown; flagged ones blurred until opened (the detail page shows them on request).
  const shown = g.outputs.filter((o) => o.moderation_status !== 'blocked');
  const picture = shown.find((o) => o.type === 'image') ?? shown.find((o) => o.type === 'thumbnail');
  if (picture) {
    const flagged = picture.moderation_status === 'flagged';
    return <img className={`thumb${flagged ? ' thumb-flagged' : ''}`} src={picture.url} alt={flagged ? 'Flagged by moderation' : ''} loading="lazy" />;
  }
  return (
    <span className="thumb thumb-glyph">
      <ModalityGlyph modality={g.modality} />
    </span>
  );
}
