import { createApp } from './api/app';

export { RateLimiter } from './api/limits/rate-limiter';
export { StreamObject } from './stream/stream-object';

const app = createApp();

export default app;
