import parsePrometheusTextFormat, { type Family } from 'parse-prometheus-text-format';

/** A scrape parsed by a Prometheus text-format parser, with look-ups by name and labels. */
export interface Scrape {
  families: Map<string, Family>;
  /** The sample's value (counter, gauge), or the count of a histogram; undefined when absent. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** The sum of a family's samples whose labels include `labels`. */
  total(name: string, labels?: Record<string, string>): number;
}

const matches = (have: Record<string, string> | undefined, want: Record<string, string>) => Object.entries(want).every(([k, v]) => (have ?? {})[k] === v);

export function parseScrape(text: string): Scrape {
  const families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
  const samples = (name: string, labels: Record<string, string>) => (families.get(name)?.metrics ?? []).filter((m) => matches(m.labels, labels));
  const numberOf = (m: Family['metrics'][number]) => Number(m.value ?? m.count);
  return {
    families,
    value(name, labels = {}) {
      const found = samples(name, labels).find((m) => Object.keys(m.labels ?? {}).length === Object.keys(labels).length);
      return found ? numberOf(found) : undefined;
    },
    total(name, labels = {}) {
      return samples(name, labels).reduce((sum, m) => sum + numberOf(m), 0);
    },
  };
}
