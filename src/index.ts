import { createApp } from './api/app';

export { StreamObject } from './stream/stream-object';

const app = createApp();

export default app;
