import type { DetailedHTMLProps, HTMLAttributes } from 'react';

/** <model-viewer> (@google/model-viewer), loaded on demand by components/Media.tsx. */
declare module 'react' {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace JSX {
    interface IntrinsicElements {
      'model-viewer': DetailedHTMLProps<HTMLAttributes<HTMLElement>, HTMLElement> & {
        src?: string;
        alt?: string;
        poster?: string;
        'camera-controls'?: boolean;
        'auto-rotate'?: boolean;
        'shadow-intensity'?: string;
        'interaction-prompt'?: string;
      };
    }
  }
}
