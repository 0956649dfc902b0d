// Seed 001 (Heimdall): the workspace view and the surface claims view.
export { claims } from './claims.js';
export { workspace } from './workspace.js';
