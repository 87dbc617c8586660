import { MODALITY_INFO, type ModalityInfo } from '../lib/modalities.js';

/** The eight modalities as a row of toggle buttons. */
export function ModalityTabs({ value, onChange }: { value: ModalityInfo['id']; onChange: (id: ModalityInfo['id']) => void }) {
  return (
    <div className="segmented segmented-wrap modality-tabs" role="group" aria-label="Modality">
      {MODALITY_INFO.map((m) => (
        <button key={m.id} type="button" aria-pressed={m.id === value} onClick={() => onChange(m.id)}>
          {m.label}
        </button>
      ))}
    </div>
  );
}
