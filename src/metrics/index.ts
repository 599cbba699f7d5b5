export type {
  BulkMetrics,
  ChargedOperation,
  CrawlMetrics,
  EnhanceMetrics,
  FetchMetrics,
  HttpMetrics,
  MatchKind,
  Metrics,
} from './port.ts';
export { MetricsRegistry, type QueueDepths } from './registry.ts';
