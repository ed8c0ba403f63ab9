/**
 * Types for parse-prometheus-text-format (the package ships none): the parsed families of a Prometheus
 * text-format exposition, as its README documents them. Histograms and summaries are left loose: we only
 * read counters, gauges and untyped series.
 */
declare module 'parse-prometheus-text-format' {
  /** One series of a counter, gauge or untyped family; value is the exposition's text ('NaN', '+Inf' too). */
  export interface PromSeries {
    value?: string;
    labels?: Record<string, string>;
    timestamp_ms?: string;
    buckets?: Record<string, string>;
    quantiles?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  /** One metric family. */
  export interface PromFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'UNTYPED' | 'HISTOGRAM' | 'SUMMARY';
    metrics: PromSeries[];
  }
  /** Parses a whole exposition; throws on malformed text. */
  export default function parsePrometheusTextFormat(text: string): PromFamily[];
}
