/** Types of `parse-prometheus-text-format` (the package ships none): the families of a text exposition. */
declare module "parse-prometheus-text-format" {
  interface Sample {
    readonly value?: string;
    readonly labels?: Readonly<Record<string, string>>;
  }
  interface Family {
    readonly name: string;
    readonly help: string;
    readonly type: "COUNTER" | "GAUGE" | "SUMMARY" | "HISTOGRAM" | "UNTYPED";
    readonly metrics: readonly Sample[];
  }
  export default function parsePrometheusTextFormat(text: string): Family[];
}
