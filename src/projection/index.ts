/**
 * Read models in D1 (seed 000, "Reducers And Read Models"). The anchoring
 * loop calls `projectWires` for accepted Wires and `updateAnchors` once they
 * are on HCS; the read API queries the tables; `rebuild` replays HCS.
 */

export { catchUp } from './catch-up';
export { decodeMessage, mirrorSource, type RebuildSource } from './mirror-source';
export { isModelName, modelNames, reducers } from './models';
export { groupByStream, projectWires, updateAnchors } from './project-wires';
export { META_ROW, rebuild, staleModels, stepRebuild } from './rebuild';
export { newRebuild, type RebuildProgress, type RebuildState } from './rebuild-state';
export type { ModelName, Reducer } from './reducer';
export { applyWire, foldStream } from './reducer';
export { streamState } from './stream-state';
export type { AnchorUpdate, ProjectedWire } from './types';
export { isVisible, selectWatermark, type Watermark, waitForWire, watermarkOf } from './watermark';
