// A minimal Prometheus exposition from tools/result observers, used when the policy engine's
// metrics are not mounted, so /metrics always answers something a scraper can read.
import type { ToolResult } from '../tool/index.js';

/** Anything that can render Prometheus text (the policy engine's metrics, or CallMetrics). */
export interface MetricsSource {
  render(): string;
}

interface ToolCounters {
  calls: Map<string, number>; // key: outcome code ('ok' or an error code)
  durationSumMs: number;
  durationCount: number;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export class CallMetrics implements MetricsSource {
  readonly #byTool = new Map<string, ToolCounters>();
  /** Extra gauges the server adds (in-flight calls, sessions). */
  readonly gauges = new Map<string, { help: string; read: () => number }>();

  /** One finished call of `tool` (a pipeline tally: the record's tool and durationMs, without the record). */
  observe(result: Readonly<ToolResult>, tool: string, durationMs: number): void {
    let c = this.#byTool.get(tool);
    if (c === undefined) {
      // Unknown names come from clients; cap distinct series so a client cannot grow memory.
      if (this.#byTool.size >= 1000) return;
      c = { calls: new Map(), durationSumMs: 0, durationCount: 0 };
      this.#byTool.set(tool, c);
    }
    const outcome = result.isError ? (result.error?.code ?? 'ERROR') : 'ok';
    c.calls.set(outcome, (c.calls.get(outcome) ?? 0) + 1);
    c.durationSumMs += durationMs;
    c.durationCount += 1;
  }

  render(): string {
    const lines = [
      '# HELP toolgate_tool_calls_total Tool calls answered, by tool and outcome.',
      '# TYPE toolgate_tool_calls_total counter',
    ];
    for (const [tool, c] of this.#byTool) {
      for (const [outcome, n] of c.calls)
        lines.push(`toolgate_tool_calls_total{tool="${escapeLabel(tool)}",outcome="${escapeLabel(outcome)}"} ${n}`);
    }
    lines.push(
      '# HELP toolgate_tool_call_duration_seconds Time from dispatch to answer.',
      '# TYPE toolgate_tool_call_duration_seconds summary',
    );
    for (const [tool, c] of this.#byTool) {
      lines.push(`toolgate_tool_call_duration_seconds_sum{tool="${escapeLabel(tool)}"} ${c.durationSumMs / 1000}`);
      lines.push(`toolgate_tool_call_duration_seconds_count{tool="${escapeLabel(tool)}"} ${c.durationCount}`);
    }
    for (const [name, g] of this.gauges)
      lines.push(`# HELP ${name} ${g.help}`, `# TYPE ${name} gauge`, `${name} ${g.read()}`);
    return `${lines.join('\n')}\n`;
  }
}
