// The server's own /metrics counters (used when the policy engine's metrics are not mounted), fed
// by a pipeline tally: the tool's name and the call's duration, with no CallRecord built for them.
import { describe, expect, it } from 'vitest';
import { CallMetrics } from '../../host/src/server/metrics.js';
import { harness, recordingTool } from '../pipeline/helpers.js';

describe('server call metrics', () => {
  it('a tally counts each call by tool and outcome, with its duration, unknown tools and bad arguments too', async () => {
    const h = harness();
    h.tools.register(recordingTool());
    const metrics = new CallMetrics();
    h.hooks.tally('server-metrics', (result, tool, durationMs) => metrics.observe(result, tool, durationMs));
    await h.pipeline.call('rec', { path: 'a' });
    await h.pipeline.call('rec', { path: 'b' });
    await h.pipeline.call('rec', { n: 'x' });
    await h.pipeline.call('nope', {});
    const text = metrics.render();
    expect(text).toContain('toolgate_tool_calls_total{tool="rec",outcome="ok"} 2\n');
    expect(text).toContain('toolgate_tool_calls_total{tool="rec",outcome="INVALID_ARGS"} 1\n');
    expect(text).toContain('toolgate_tool_calls_total{tool="nope",outcome="UNKNOWN_TOOL"} 1\n');
    expect(text).toContain('toolgate_tool_call_duration_seconds_count{tool="rec"} 3\n');
    const sum = Number(/toolgate_tool_call_duration_seconds_sum\{tool="rec"\} (\S+)/.exec(text)?.[1]);
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(10);
  });
});
