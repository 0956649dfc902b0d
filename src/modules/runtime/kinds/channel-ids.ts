/**
 * A channel's ids and those derived from it: the branches, workers and
 * summarize jobs its decisions name are `<channel>-b<seq>`,
 * `<channel>-w<seq>` and `<channel>-c<seq>-<level>` (seq: the Wire that
 * caused them), so a decision names them before they exist.
 */
export const channelIdOf = (streamId: string) => streamId.slice('channel:'.length);
/**
 * The longest channel id: every id derived from it (`<channel>-b<seq>`,
 * `<channel>-w<seq>`, the longest `<channel>-c<seq>-emergency`) must stay a
 * stream id of at most 100 characters at any seq up to 2^53.
 */
export const CHANNEL_ID_MAX =
  100 - '-c'.length - String(Number.MAX_SAFE_INTEGER).length - '-emergency'.length;
export const branchIdFor = (channelId: string, seq: number) => `${channelId}-b${seq}`;
export const workerIdFor = (channelId: string, seq: number) => `${channelId}-w${seq}`;
export const jobIdFor = (channelId: string, seq: number, level: string) =>
  `${channelId}-c${seq}-${level}`;
