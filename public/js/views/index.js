// The dashboard's views, in the order the navigation shows them. A protocol
// module adds its view with one import and one entry here, e.g. for seed 001:
//   import { workspaces } from './workspaces/index.js';   … [coordination, workspaces, …]
// A view is { id, title, View }: `id` names its route (`#/<id>…`), `View` is a
// Preact component given { route } (see ../lib/router.js), mounted while the
// view is shown and unmounted when the user leaves it (close feeds, stop polls
// in effect clean-ups).
import { anchoring } from './anchoring.js';
import { coordination } from './coordination/index.js';
import { gsd } from './gsd.js';
import { claims, workspace } from './heimdall/index.js';
import { runs } from './runs.js';
import { runtime } from './runtime.js';
import { streams } from './streams.js';

/** @type {{ id: string, title: string, View: (props: { route: import('../lib/router.js').Route }) => unknown }[]} */
export const VIEWS = [coordination, streams, anchoring, runs, gsd, workspace, claims, runtime];
