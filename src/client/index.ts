/**
 * `wirestream/client`: the Wirestream SDK for Node 20, browsers and Workers.
 *
 *   const client = new WirestreamClient({ token, sender: 'agent:quinn-03' });
 *   await client.append('project:kv', { type: 'review.concern', payload: { concern: 'naming' } });
 *   client.subscribe('project:kv', { onWires: (wires) => console.log(wires) });
 */
export { backoffDelay, DEFAULT_RETRY, parseRetryAfter, type RetryPolicy } from './backoff';
export { streamPath, WirestreamClient } from './client';
export type {
  AppendInput,
  AppendResult,
  ClientOptions,
  Payload,
  ProofOptions,
  StreamInfo,
  WirePage,
} from './client-types';
export { WirestreamError } from './errors';
export { type ClaimOptions, claimTask, TaskLease } from './lease';
export {
  type ApiGet,
  type ChainFinding,
  type LogChainCheck,
  verifyLogChain,
} from './log-chain';
export {
  type LogCheckStep,
  type LogProof,
  type LogProofCheck,
  readLogProof,
  verifyLogProof,
} from './log-proof';
export {
  type Emitted,
  type EventsFilter,
  type EventsView,
  type GsdEvent,
  ProjectClient,
} from './projects';
export {
  latestSequence,
  type MirrorMessage,
  mirrorMessages,
  type TopicCheck,
  verifyMessage,
  verifyTopic,
  type WalkedMessage,
  walkTopic,
} from './proof';
export { type Gap, ResumeCursor, resumeHint } from './resume-cursor';
export {
  type ActorMessageInput,
  type RunCreateInput,
  RunsClient,
  type WriterVerdict,
} from './runs';
export {
  type RoutedMessage,
  RuntimeChannel,
  RuntimeWorker,
  runtimeEnvelope,
  type WorkerSpec,
} from './runtime';
export {
  type AgentKey,
  type AgentKeyJwk,
  type AnchoredEnvelope,
  type AuditResult,
  agentKeyFromJwk,
  anchoredFromMirror,
  generateAgentKeyJwk,
  signatureOffer,
  signWire,
  verifyAnchoredWire,
} from './signing';
export { Subscription } from './subscription';
export type { SubscribeOptions, SubscriptionState } from './subscription-types';
export type {
  AnchorState,
  AnchorUpdate,
  AppendReceipt,
  ServedWire,
  ServerFrame,
  SocketLike,
  WebSocketConstructor,
  WireProof,
} from './types';
export { type BriefInput, type CapsuleInput, type ClaimInput, WorkspaceClient } from './workspace';
