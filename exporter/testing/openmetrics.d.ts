/** What Prometheus 2.x sends: OpenMetrics first. */
export declare const PROMETHEUS_ACCEPT = "application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2";
export declare const promtoolCheck: (text: string) => Promise<{
    code: number | null;
    output: string;
}>;
export interface OpenMetricsCheck {
    families: Record<string, string>;
    exemplars: {
        sample: string;
        labels: Record<string, string>;
        exemplar: Record<string, string>;
        value: number;
    }[];
}
export declare function openMetricsCheck(text: string): Promise<OpenMetricsCheck>;
/** The exporter's /metrics in OpenMetrics, read by client_python's parser (which must accept it). */
export declare function readOpenMetrics(url: string): Promise<OpenMetricsCheck>;
