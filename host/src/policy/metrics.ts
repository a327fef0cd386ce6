// Prometheus text exposition (format 0.0.4) without a client library: counters, one histogram
// family and gauges read from callbacks at scrape time (live instances belong to the sandbox, so
// it registers a callback instead of pushing numbers).

export type Labels = Readonly<Record<string, string>>;
export interface GaugeSample {
  labels: Labels;
  value: number;
}
export type GaugeCallback = () => readonly GaugeSample[];

const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] as const;

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

/**
 * Label names in code-unit order. Not localeCompare: its first use loads ICU's collation (13-50 ms
 * at load 13 on this machine), which every tool's first call paid in this observer. Label names are
 * lower-case ASCII identifiers here, which both orders sort alike; Prometheus reads either.
 */
function byName([a]: [string, string], [b]: [string, string]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function labelText(labels: Labels, extra?: [string, string]): string {
  const pairs = Object.entries(labels).sort(byName);
  if (extra) pairs.push(extra);
  if (pairs.length === 0) return '';
  return `{${pairs.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`;
}

function key(labels: Labels): string {
  return JSON.stringify(Object.entries(labels).sort(byName));
}

function num(n: number): string {
  if (n === Infinity) return '+Inf';
  if (Number.isNaN(n)) return 'NaN';
  return String(n);
}

class Counter {
  readonly #values = new Map<string, { labels: Labels; value: number }>();
  inc(labels: Labels, by = 1): void {
    const k = key(labels);
    const cur = this.#values.get(k);
    if (cur) cur.value += by;
    else this.#values.set(k, { labels: { ...labels }, value: by });
  }
  get(labels: Labels): number {
    return this.#values.get(key(labels))?.value ?? 0;
  }
  lines(name: string): string[] {
    return [...this.#values.values()].map((s) => `${name}${labelText(s.labels)} ${num(s.value)}`);
  }
}

class Histogram {
  readonly #series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  readonly buckets: readonly number[];
  constructor(buckets: readonly number[]) {
    this.buckets = buckets;
  }
  observe(labels: Labels, v: number): void {
    const k = key(labels);
    let series = this.#series.get(k);
    if (!series) {
      series = { labels: { ...labels }, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.#series.set(k, series);
    }
    const { counts } = series;
    this.buckets.forEach((b, i) => {
      if (v <= b) counts[i] = (counts[i] ?? 0) + 1;
    });
    series.sum += v;
    series.count += 1;
  }
  lines(name: string): string[] {
    const out: string[] = [];
    for (const s of this.#series.values()) {
      this.buckets.forEach((b, i) =>
        out.push(`${name}_bucket${labelText(s.labels, ['le', num(b)])} ${s.counts[i] ?? 0}`),
      );
      out.push(`${name}_bucket${labelText(s.labels, ['le', '+Inf'])} ${s.count}`);
      out.push(`${name}_sum${labelText(s.labels)} ${num(s.sum)}`);
      out.push(`${name}_count${labelText(s.labels)} ${s.count}`);
    }
    return out;
  }
}

/** The metrics toolgate exposes at GET /metrics. One instance per process (see PolicyServices). */
export class Metrics {
  readonly calls = new Counter();
  readonly denials = new Counter();
  readonly timeouts = new Counter();
  readonly duration = new Histogram(DEFAULT_BUCKETS);
  readonly #gauges = new Map<string, { help: string; callbacks: Set<GaugeCallback> }>();
  readonly #onError: (err: unknown, name: string) => void;

  constructor(options: { onError?: (err: unknown, name: string) => void } = {}) {
    this.#onError = options.onError ?? (() => {});
    this.#gauges.set('toolgate_live_instances', { help: 'Live sandbox instances per tool.', callbacks: new Set() });
  }

  /** Adds a callback read at every scrape; the returned function removes it. */
  gauge(name: string, help: string, fn: GaugeCallback): () => void {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name)) throw new TypeError(`invalid metric name ${JSON.stringify(name)}`);
    let g = this.#gauges.get(name);
    if (!g) {
      g = { help, callbacks: new Set() };
      this.#gauges.set(name, g);
    }
    const entry = g;
    const cb: GaugeCallback = () => fn();
    entry.callbacks.add(cb);
    return () => void entry.callbacks.delete(cb);
  }

  renderMetrics(): string {
    const out: string[] = [];
    const family = (name: string, type: string, help: string, lines: string[]): void => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...lines);
    };
    family(
      'toolgate_calls_total',
      'counter',
      'Tool calls by tool and outcome.',
      this.calls.lines('toolgate_calls_total'),
    );
    family(
      'toolgate_denials_total',
      'counter',
      'Denied calls by the policy entry that denied them.',
      this.denials.lines('toolgate_denials_total'),
    );
    family(
      'toolgate_call_duration_seconds',
      'histogram',
      'Call duration in seconds.',
      this.duration.lines('toolgate_call_duration_seconds'),
    );
    family(
      'toolgate_timeouts_total',
      'counter',
      'Calls that ended in TIMEOUT.',
      this.timeouts.lines('toolgate_timeouts_total'),
    );
    for (const [name, g] of this.#gauges) {
      const lines: string[] = [];
      for (const cb of g.callbacks) {
        try {
          for (const s of cb()) lines.push(`${name}${labelText(s.labels)} ${num(s.value)}`);
        } catch (err) {
          // A broken gauge must not take the whole scrape down.
          this.#onError(err, name);
        }
      }
      family(name, 'gauge', g.help, lines);
    }
    return `${out.join('\n')}\n`;
  }
}
